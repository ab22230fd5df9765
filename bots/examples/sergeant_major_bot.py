"""A Sergeant Major (9-5-2) starter bot: one file, standard library only, uploadable as is.

Create the bot for Sergeant Major on the site, upload this file, then make it smarter. It
speaks the protocol of docs/protocol.md ("Sergeant Major") and plays a simple, sensible game:

- trump: the suit it holds most of (the stronger one on a tie);
- discard (the dealer): its lowest cards outside trump, from its shortest suits first, so it
  can trump those suits sooner;
- give (the exchange): its lowest cards, which it would not miss;
- return: what the rules send back (the one legal answer);
- play: take the trick as cheaply as it can, else throw its lowest card; on lead, its
  highest card, so a winner is not left to be trumped later.

Cards are two letters: rank (2-9, T, J, Q, K, A) and suit (C, D, H, S).
"""

import json
import sys

RANKS = "23456789TJQKA"


def rank(card):
    return RANKS.index(card[0])


def suit(card):
    return card[1]


def lowest_first(cards, trump=None):
    """Cards from the least to the most useful: plain cards before trumps, low before high."""
    return sorted(cards, key=lambda c: (suit(c) == trump, rank(c)))


def choose_trump(hand):
    def strength(s):
        held = [rank(c) for c in hand if suit(c) == s]
        return (len(held), sum(held))

    return max("CDHS", key=strength)


def choose_discard(legal, count, trump):
    """The lowest plain cards, from the shortest plain suits first (voids let us trump)."""
    length = {s: sum(1 for c in legal if suit(c) == s) for s in "CDHS"}
    order = sorted(legal, key=lambda c: (suit(c) == trump, length[suit(c)], rank(c)))
    return order[:count]


def winning(card, trick_cards, trump):
    """Does `card` beat every card played so far in the trick?"""
    led = suit(trick_cards[0])
    for other in trick_cards:
        if suit(card) == suit(other):
            if rank(card) < rank(other):
                return False
        elif suit(other) == trump or (suit(card) != trump and suit(card) != led):
            return False
    return True


def choose_play(legal, state):
    trump = state["trump"]
    trick = state["trick"]
    if not trick or not trick["cards"]:  # we lead: our best card
        plain = [c for c in legal if suit(c) != trump] or legal
        return max(plain, key=rank)
    winners = [c for c in legal if winning(c, trick["cards"], trump)]
    if winners:
        return lowest_first(winners, trump)[0]
    return lowest_first(legal, trump)[0]


def decide(message):
    legal = message["legal"]
    state = message["state"]
    decision = message["decision"]
    if decision == "trump":
        return choose_trump(state["hand"])
    if decision == "discard":
        return choose_discard(legal, message["count"], state["trump"])
    if decision == "give":
        return lowest_first(legal)[: message["count"]]
    if decision == "return":
        return legal  # forced: the rules name the cards that go back
    return choose_play(legal, state)


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            reply = {"id": message["id"], "type": "ready", "game": "sergeant-major",
                     "name": "sergeant-major-starter"}
        elif message["type"] == "act":
            reply = {"id": message["id"], "action": decide(message)}
        elif message["type"] == "match_end":
            break
        else:
            continue  # deal_end, game_end: no reply
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
