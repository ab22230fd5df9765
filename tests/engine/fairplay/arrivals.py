"""A seat that notes when each message reaches it (issue 41: under strict time deal_end comes
with the seat's next message, not when the deal ends). It reads its input as the bytes come
(no buffering), and for every line says on standard error which read brought it and when:

    LINE read=N type=T at_ms=X

It plays the first legal action (Kaiser)."""

import json
import os
import sys
import time


def lines():
    """Each line of the input with the number of the read that brought its end."""
    pending, reads = b"", 0
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return
        reads += 1
        pending += chunk
        *whole, pending = pending.split(b"\n")
        for line in whole:
            yield reads, json.loads(line)


def action(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


def main():
    for read, message in lines():
        kind = message["type"]
        print(f"LINE read={read} type={kind} at_ms={time.monotonic() * 1000:.3f}",
              file=sys.stderr, flush=True)
        if kind == "hello":
            print(json.dumps({"id": 0, "type": "ready"}), flush=True)
        elif kind == "act":
            print(json.dumps({"id": message["id"], "action": action(message)}), flush=True)
        elif kind == "match_end":
            return


main()
