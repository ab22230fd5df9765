"""Sergeant Major's decisions as the fair-play detector reads them (engine.fairplay;
Game.fairplay_decisions): a walk of a replay that lists a side's decisions (it holds one seat a
game) in the engine's order, each with the public situation its think time may follow in the
open and the features of the seat's dealt hand.

Public features: how many legal actions (and whether it is forced: every `return` is), the
seat's first decision of a game (a fresh process warms up), the decision's kind (give, return,
trump, discard, play), the trick of the hand (1 to 16: the cards left to search) and the place
in it, and the seat's role in the hand (dealer, eldest, the dealer's right: its target).
Hand features: each card of the 16 dealt, the suits' lengths, aces to jacks, a strength.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.fairplay import PublicDecision, public_decisions
from engine.sergeant_major.cards import CARD_NAMES, CARD_OF, SUITS, cards_mask
from engine.sergeant_major.game import DECISIONS, DISCARD, TRUMP, Deal, SMState
from engine.sergeant_major.match import FORMAT, seat_sides
from engine.sergeant_major.protocol import action_from_wire
from engine.sergeant_major.rules import SMRules

TRICKS = 16
KINDS = ("give", "return", "trump", "discard")  # and "play", the constant's


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a seat, as the replay shows it."""

    game: int
    deal: int
    seat: int
    kind: str
    legal: int  # how many legal actions (give and discard: how many sets of cards)
    trick: int  # the trick's number in the hand, -1 outside the play
    place: int  # the place in the trick, else 0
    role: int  # the seat's place from the dealer: 0 the dealer, 1 eldest, 2 the dealer's right
    move: int  # the seat's decisions before this one in the hand
    first: bool  # the seat's first decision of the game
    dealt: int  # the seat's 16 cards as dealt, a mask of engine.sergeant_major.cards numbers


def fairplay_decisions(replay: dict[str, Any], side: str) -> list[PublicDecision]:
    """Every decision `side` made in the match, in the engine's order, as the detector reads
    it."""
    return public_decisions(side_decisions(replay, side), public_features, hand_features,
                            HAND_NAMES)


def side_decisions(replay: dict[str, Any], side: str) -> list[Decision]:
    """Every decision `side` made, game by game, as the rules asked them. A hand that a
    forfeit cut short gives what it recorded (the unfinished trick is not in a replay)."""
    if replay.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT}")
    rules = SMRules.from_dict(replay["rules"])
    found: list[Decision] = []
    for number, game in enumerate(replay["games"]):
        seat = seat_sides(number).index(side)
        found += [d for d in _game_decisions(rules, number, game) if d.seat == seat]
    return found


def _game_decisions(rules: SMRules, number: int, game: dict[str, Any]) -> list[Decision]:
    deals = game["deals"]
    if not deals:
        return []
    source = _recorded(deals)

    def next_deal() -> Deal:
        return next(source)

    state = SMState(rules, dealer=deals[0]["dealer"], deals=next_deal, game=number)
    walk = _Walk(number)
    for index, record in enumerate(deals):
        if not walk.hand(state, index, record) or state.is_terminal():
            break
    return walk.found


def _recorded(deals: list[dict[str, Any]]) -> Iterator[Deal]:
    for record in deals:
        hands = [_mask(h) for h in record["hands"]]
        yield (hands[0], hands[1], hands[2]), _mask(record["kitty"])


def _mask(names: list[str]) -> int:
    return cards_mask([CARD_OF[name] for name in names])


class _Walk:
    """Applies a hand record's actions to the state, noting each decision before it."""

    def __init__(self, game: int) -> None:
        self.game = game
        self.found: list[Decision] = []
        self.seen: set[int] = set()

    def hand(self, state: SMState, index: int, record: dict[str, Any]) -> bool:
        """False where the record stops short (a forfeit)."""
        self.index, self.moves = index, [0, 0, 0]
        for exchange in record["exchanges"]:
            for key in ("given", "returned"):
                if exchange[key] is None:
                    return False
                self.act(state, exchange[key])
        if state.phase == TRUMP:
            if record["trump"] is None:
                return False
            self.act(state, record["trump"])
        if state.phase == DISCARD:
            if not record["discards"]:
                return False
            self.act(state, record["discards"])
        for number, trick in enumerate(record["tricks"]):
            for place, card in enumerate(trick["cards"]):
                self.act(state, card, place, number)
        return len(record["tricks"]) == TRICKS

    def act(self, state: SMState, value: Any, place: int = 0, trick: int = -1) -> None:
        seat = state.seat
        kind = DECISIONS[state.phase] or "over"
        self.found.append(Decision(
            game=self.game, deal=self.index, seat=seat, kind=kind,
            legal=len(state.legal_actions()), trick=trick, place=place,
            role=(seat - state.dealer) % 3, move=self.moves[seat],
            first=seat not in self.seen, dealt=state.dealt[seat]))
        self.seen.add(seat)
        self.moves[seat] += 1
        state.apply(action_from_wire(state, value))


def public_features(d: Decision) -> tuple[float, ...]:
    """What a decision's time may depend on in the open (the module's docstring)."""
    row = [math.log(d.legal) if d.legal > 0 else 0.0, float(d.legal == 1), float(d.first)]
    row += [float(d.kind == kind) for kind in KINDS]
    row += [float(d.kind == "play" and d.trick == n) for n in range(1, TRICKS)]
    row += [float(d.kind == "play" and d.place == n) for n in (1, 2)]
    row += [float(d.role == n) for n in (1, 2)]
    return tuple(row)


_DECK = tuple(range(52))  # engine.sergeant_major.cards: suit * 13 + rank, 2 low, ace high


def hand_features(mask: int) -> tuple[float, ...]:
    """Each card held, the suits' lengths, aces to jacks held, a strength (A 1, K .6, Q .3)."""
    cards = [float(mask >> c & 1) for c in _DECK]
    suits = [float((mask >> (13 * s) & 8191).bit_count()) for s in range(4)]
    ranks = [float(sum(mask >> (13 * s + r) & 1 for s in range(4))) for r in (12, 11, 10, 9)]
    strength = sum((1.0, 0.6, 0.3)[12 - r] for s in range(4) for r in (12, 11, 10)
                   if mask >> (13 * s + r) & 1)
    return (*cards, *suits, *ranks, strength)


HAND_NAMES = tuple([f"holds {CARD_NAMES[c]}" for c in _DECK]
                   + [f"{s} length" for s in SUITS]
                   + ["aces", "kings", "queens", "jacks", "strength"])
