"""A greedy player: bids on its high cards, wins tricks as cheaply as it can, never wastes.

Built on kaiser_protocol.py (in the same folder). A starting point, not a strong player.
"""

import sys

import kaiser_protocol
from kaiser_protocol import card_points, rank, suit, trick_winner


def hand_strength(hand, trump):
    """Roughly the tricks this hand takes with `trump` (None: no trump)."""
    tricks = 0.0
    for card in hand:
        r = rank(card)
        if r == 9:
            tricks += 1.0
        elif r == 8:
            tricks += 0.6
        elif r == 7:
            tricks += 0.3
        if trump is not None and suit(card) == trump:
            tricks += 0.5
    return tricks


def best_trump(hand, suits="CDHS"):
    return max(suits, key=lambda s: hand_strength(hand, s))


def choose_bid(message):
    legal = message["legal"]
    hand = message["state"]["hand"]
    # Our partner's tricks count too: assume they bring two.
    expected = int(hand_strength(hand, best_trump(hand)) + 2.5)
    numbers = [b for b in legal if b != "pass" and b[-1].isdigit() and int(b) <= expected]
    if numbers:
        return numbers[0]  # the cheapest bid we believe in
    return "pass" if "pass" in legal else legal[0]


def choose_card(message):
    legal = message["legal"]
    state = message["state"]
    contract = state["contract"] or {}
    trump = contract.get("trump")
    low = str(contract.get("bid", "")).endswith("L")
    trick = (state["trick"] or {}).get("cards", [])
    by_cheapness = sorted(legal, key=lambda c: (card_points(c) != 0, rank(c)))
    if not trick:
        return max(legal, key=rank)  # lead our strongest card
    winner = trick_winner(trick, trump, low)
    partner_winning = len(trick) - winner == 2
    if partner_winning:
        return "5H" if "5H" in legal else by_cheapness[0]
    winning = [c for c in legal if trick_winner(trick + [c], trump, low) == len(trick)]
    if winning:
        return min(winning, key=lambda c: (c == "3S", rank(c)))
    return "3S" if "3S" in legal else by_cheapness[0]


def decide(message):
    decision = message["decision"]
    if decision == "bid":
        return choose_bid(message)
    if decision == "trump":
        return best_trump(message["state"]["hand"], message["legal"])
    if decision == "discard":
        hand = message["state"]["hand"]
        return sorted(message["legal"], key=rank)[: len(hand) - 8]
    if decision == "misdeal":
        return False
    return choose_card(message)


if __name__ == "__main__":
    print("greedy bot starting", file=sys.stderr)
    kaiser_protocol.run(decide, name="greedy (python)")
