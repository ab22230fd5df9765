"""A bot of any game that answers every decision with an action no game allows: it says
`ready` for the game its hello names (none named: the default game), then replies "ZZ"."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        ready = {"id": message["id"], "type": "ready"}
        if "game" in message:
            ready["game"] = message["game"]
        print(json.dumps(ready), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"id": message["id"], "action": "ZZ"}), flush=True)
    elif message["type"] == "match_end":
        break
