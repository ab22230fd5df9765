"""A Sergeant Major bot that tries to lose: its weakest suit as trump, its highest cards
given away and discarded, its lowest card always played."""

import json
import sys

RANKS = "23456789TJQKA"


def rank(card):
    return RANKS.index(card[0])


def decide(message):
    legal, decision = message["legal"], message["decision"]
    if decision == "trump":
        hand = message["state"]["hand"]
        return min("CDHS", key=lambda s: sum(1 for c in hand if c[1] == s))
    if decision in ("give", "discard"):
        return sorted(legal, key=rank, reverse=True)[: message["count"]]
    if decision == "return":
        return legal
    return min(legal, key=rank)


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply = {"id": message["id"], "type": "ready", "game": "sergeant-major"}
    elif message["type"] == "act":
        reply = {"id": message["id"], "action": decide(message)}
    elif message["type"] == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
