"""A Duel bot: one file, standard library only, uploadable as is. It speaks the JSON-lines
protocol of docs/protocol.md for the test game Duel: it answers `hello` with `ready` naming
the game, and plays on each `act`:

- on lead: its highest card;
- following: the highest card of the suit led that beats the card led, else its lowest card.

Cards are two characters: rank (1 to 6) and suit (S or H).
"""

import json
import sys


def rank(card):
    return int(card[0])


def choose(legal, state):
    trick = state["trick"]["cards"]
    if not trick:
        return max(legal, key=rank)
    led = trick[0]
    winners = [c for c in legal if c[1] == led[1] and rank(c) > rank(led)]
    if winners:
        return max(winners, key=rank)
    return min(legal, key=rank)


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            reply = {"id": message["id"], "type": "ready", "game": "duel", "name": "duel-bot"}
        elif kind == "act":
            reply = {"id": message["id"], "action": choose(message["legal"], message["state"])}
        elif kind == "match_end":
            break
        else:
            continue  # deal_end, game_end: notifications, no reply
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
