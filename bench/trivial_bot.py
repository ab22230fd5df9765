"""The benchmark's trivial bot: the first legal action; at match_end it logs its own CPU time."""

import json
import sys
import time

acts = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"id": message["id"], "type": "ready"}
    elif message["type"] == "act":
        acts += 1
        legal = message["legal"]
        action = legal[: len(message["state"]["hand"]) - 8] if message["decision"] == "discard" \
            else legal[0]
        reply = {"id": message["id"], "action": action}
    elif message["type"] == "match_end":
        print(f"cpu {time.process_time():.6f} acts {acts}", file=sys.stderr, flush=True)
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
