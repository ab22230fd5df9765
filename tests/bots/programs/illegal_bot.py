"""Answers hello properly, then plays a card it does not hold."""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "hello":
        print(json.dumps({"id": message["id"], "type": "ready"}), flush=True)
    elif message.get("type") == "act":
        legal = message["legal"]
        if message["decision"] == "play":
            deck = [r + s for s in "CDHS" for r in "3579TJQKA8"]
            hand = set(message["state"]["hand"])
            action = next(card for card in deck if card not in hand)
        else:
            action = legal[0] if message["decision"] != "misdeal" else False
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
    elif message.get("type") == "match_end":
        break
