"""Plays legally but also answers the deal_end notification, which must not be answered."""

import json
import sys


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message.get("id"), **fields}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply(message, type="ready")
    elif message["type"] == "act":
        legal = message["legal"]
        reply(message, action=legal[0])
    elif message["type"] == "deal_end":
        reply(message, action="thanks")
