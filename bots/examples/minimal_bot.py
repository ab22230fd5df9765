"""The smallest complete Kaiser Arena bot: one file, standard library only, uploadable as is.

It plays the first legal action. Copy it, then make decide() smarter.
"""

import json
import sys


def decide(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]  # give back what the kitty brought
    return legal[0]


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"id": message["id"], "type": "ready", "name": "minimal"}
    elif message["type"] == "act":
        reply = {"id": message["id"], "action": decide(message)}
    elif message["type"] == "match_end":
        break
    else:
        continue  # deal_end, game_end: no reply
    print(json.dumps(reply), flush=True)
