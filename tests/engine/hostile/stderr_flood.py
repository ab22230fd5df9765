"""Plays legally while writing to standard error without end."""

import json
import sys
import threading


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


def flood():
    line = "debug " * 100 + "\n"
    while True:
        sys.stderr.write(line)


threading.Thread(target=flood, daemon=True).start()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply(message, type="ready")
    elif message["type"] == "act":
        reply(message, action=play(message))
    elif message["type"] == "match_end":
        break
