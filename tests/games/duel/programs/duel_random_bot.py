"""A Duel bot that plays a random legal card, its generator seeded from its hello (its game
and seat), so that a match against it is the same every time."""

import json
import random
import sys


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            rng = random.Random(f"duel-random/{message['match']['game']}/{message['seat']}")
            reply = {"id": message["id"], "type": "ready", "game": "duel", "name": "duel-random"}
        elif kind == "act":
            reply = {"id": message["id"], "action": rng.choice(message["legal"])}
        elif kind == "match_end":
            break
        else:
            continue
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
