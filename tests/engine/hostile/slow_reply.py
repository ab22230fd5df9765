"""Answers its first decision correctly, but only after sleeping (no CPU time) far past its
time: the wall-clock backstop, not the CPU clock, must end it."""

import json
import sys
import time


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]

HELLO = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        HELLO.update(message)
        reply(message, type="ready")
    elif message["type"] == "act":
        limit_s = (message["state"]["bank_ms"] + HELLO["time"]["move_ms"]) / 1000
        time.sleep(limit_s * 100 + 60)
        reply(message, action=play(message))
