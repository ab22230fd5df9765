"""A bot that declares Kaiser in its ready line (uploaded to a Sergeant Major bot: rejected)."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"id": message["id"], "type": "ready", "game": "kaiser"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"id": message["id"], "action": message["legal"][0]}), flush=True)
    elif message["type"] == "match_end":
        break
