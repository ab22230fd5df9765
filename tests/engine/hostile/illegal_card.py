"""Bids legally, then plays a card it may not play."""

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


DECK = [r + s for s in "CDHS" for r in "AKQJT987"] + ["5H", "3S"]
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply(message, type="ready")
    elif message["type"] == "act":
        if message["decision"] == "play":
            reply(message, action=next(c for c in DECK if c not in message["legal"]))
        else:
            reply(message, action=play(message))
