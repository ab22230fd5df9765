"""Plays three decisions, then exits in the middle of the deal."""

import json
import sys


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


acts = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply(message, type="ready")
    elif message["type"] == "act":
        acts += 1
        if acts == 3:
            sys.exit(0)
        reply(message, action=play(message))
