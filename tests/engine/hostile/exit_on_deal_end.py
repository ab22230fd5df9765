"""Plays legally until the first deal_end notification, then exits between two decisions."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"id": 0, "type": "ready"}
    elif message["type"] == "act":
        reply = {"id": message["id"], "action": message["legal"][0]}
    elif message["type"] == "deal_end":
        sys.exit(0)
    else:
        continue
    print(json.dumps(reply), flush=True)
