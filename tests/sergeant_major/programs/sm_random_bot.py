"""A Sergeant Major bot that picks a legal action at random (seeded by its seat)."""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        rng.seed(message["seat"])
        reply = {"id": message["id"], "type": "ready", "game": "sergeant-major"}
    elif message["type"] == "act":
        legal = message["legal"]
        if message["decision"] in ("give", "discard"):
            action = rng.sample(legal, message["count"])
        elif message["decision"] == "return":
            action = legal
        else:
            action = rng.choice(legal)
        reply = {"id": message["id"], "action": action}
    elif message["type"] == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
