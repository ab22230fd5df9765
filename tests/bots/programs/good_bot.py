"""A minimal correct bot: the first legal action (never throws a hand in)."""
import json
import sys

kitty = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        kitty = message["rules"]["kitty"]
        print(json.dumps({"id": message["id"], "type": "ready", "name": "first-legal"}), flush=True)
    elif kind == "act":
        legal = message["legal"]
        if message["decision"] == "discard":
            action = legal[:kitty]
        elif message["decision"] == "misdeal":
            action = False
        else:
            action = legal[0]
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
    elif kind == "match_end":
        break
print("good bot says goodbye", file=sys.stderr)
