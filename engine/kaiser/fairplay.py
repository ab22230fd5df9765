"""Kaiser's decisions as the fair-play detector reads them (engine.fairplay, through
Game.fairplay_decisions): a walk of a replay that lists a side's decisions in the engine's
order, each with the public situation its think time may follow in the open and the features
of the deciding seat's dealt hand.

Public features: the decision's kind, how many legal actions (and whether it is forced), the
trick and the place in it, the bids before it, and the seat's first decision of a game (a fresh
process warms up). Hand features: each card held, the suits' lengths, aces to jacks, a strength.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.fairplay import PublicDecision, public_decisions
from engine.kaiser.cards import CARD_OF, RANKS, SUITS
from engine.kaiser.game import DISCARD, MISDEAL, PLAY, TRUMP, GameState
from engine.kaiser.match import seat_sides
from engine.kaiser.protocol import action_from_wire
from engine.kaiser.rules import Rules

KINDS = ("misdeal", "bid", "trump", "discard", "play")


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a side, as the replay shows it."""

    game: int
    deal: int
    seat: int
    kind: str
    legal: int  # how many legal actions (discards: how many sets)
    trick: int  # the trick's number in the deal, -1 outside the play
    place: int  # the place in the trick (play) or in the bidding (bid), else 0
    move: int  # the seat's decisions before this one in the deal
    first: bool  # the seat's first decision of the game (a fresh process warms up)
    dealt: int  # the seat's hand as dealt, a mask of engine.kaiser.cards numbers


def fairplay_decisions(replay: dict[str, Any], side: str) -> list[PublicDecision]:
    """Every decision `side` made in the match, in the engine's order, as the detector reads
    it."""
    return public_decisions(side_decisions(replay, side), public_features, hand_features,
                            HAND_NAMES)


def side_decisions(replay: dict[str, Any], side: str) -> list[Decision]:
    """Every decision `side` made in the match, in the engine's order (game by game, as
    the rules asked them). Thrown-in hands' "keep it" answers included. A deal that a
    forfeit cut short gives what it recorded (the unfinished trick is not in a replay)."""
    if replay.get("format") != "kaiser-replay":
        raise ValueError("not a Kaiser replay")
    rules = Rules.from_dict(replay["rules"])
    found: list[Decision] = []
    for number, game in enumerate(replay["games"]):
        sides = seat_sides(number)
        found += [d for d in _game_decisions(rules, number, game) if sides[d.seat] == side]
    return found


def _game_decisions(rules: Rules, number: int, game: dict[str, Any]) -> list[Decision]:
    deals = game["deals"]
    if not deals:
        return []
    queue = iter(deals)

    def next_deal() -> tuple[tuple[int, int, int, int], int]:
        record = next(queue)
        hands = tuple(_mask(h) for h in record["hands"])
        return (hands[0], hands[1], hands[2], hands[3]), _mask(record["kitty"])

    state = GameState(rules, dealer=deals[0]["dealer"], deals=next_deal, game=number)
    walk = _Walk(number)
    for index, record in enumerate(deals):
        walk.deal(state, index, record)
        if state.is_terminal():
            break
    return walk.found


def _mask(cards: Sequence[str]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << CARD_OF[card]
    return mask


class _Walk:
    """Applies a deal record's actions to the state, noting each decision before it."""

    def __init__(self, game: int) -> None:
        self.game = game
        self.found: list[Decision] = []
        self.seen: set[int] = set()

    def deal(self, state: GameState, index: int, record: dict[str, Any]) -> None:
        self.index, self.moves = index, [0, 0, 0, 0]
        misdeal = record["misdeal"]
        while state.phase == MISDEAL:
            throw = misdeal is not None and misdeal["seat"] == state.seat
            self.act(state, throw, 0)
            if throw:
                return
        for place, entry in enumerate(record["bids"]):
            self.act(state, entry["bid"], place)
        contract = record["contract"]
        if state.phase == TRUMP and contract and contract["trump"] is not None:
            self.act(state, contract["trump"], 0)
        if state.phase == DISCARD and record["discards"]:
            self.act(state, record["discards"], 0)
        for number, trick in enumerate(record["tricks"]):
            for place, card in enumerate(trick["cards"]):
                if state.phase != PLAY:
                    return
                self.act(state, card, place, number)

    def act(self, state: GameState, value: Any, place: int, trick: int = -1) -> None:
        seat = state.seat
        kind = KINDS[state.phase]
        legal = len(state.legal_actions())
        self.found.append(Decision(
            game=self.game, deal=self.index, seat=seat, kind=kind, legal=legal, trick=trick,
            place=place, move=self.moves[seat], first=seat not in self.seen,
            dealt=state.dealt[seat]))
        self.seen.add(seat)
        self.moves[seat] += 1
        state.apply(action_from_wire(state, value))


def public_features(d: Decision) -> tuple[float, ...]:
    """What a decision's time may depend on in the open: how many legal actions (and whether
    it is forced), the seat's first decision of a game (a process warming up), its kind, the
    trick and the place in it, the bids before it."""
    row = [math.log(d.legal) if d.legal > 0 else 0.0, float(d.legal == 1), float(d.first)]
    row += [float(d.kind == kind) for kind in ("misdeal", "trump", "discard", "play")]
    row += [float(d.kind == "play" and d.trick == n) for n in range(1, 8)]
    row += [float(d.kind == "play" and d.place == n) for n in range(1, 4)]
    row += [float(d.kind == "bid" and d.place == n) for n in range(1, 4)]
    return tuple(row)


_DECK = [CARD_OF[r + s] for s in SUITS for r in RANKS]


def hand_features(mask: int) -> tuple[float, ...]:
    """Each card held, the suits' lengths, aces to jacks held, a strength (A 1, K .6, Q .3)."""
    cards = [float(mask >> c & 1) for c in _DECK]
    suits = [float(bin(mask >> (10 * s) & 1023).count("1")) for s in range(4)]
    ranks = [float(sum(mask >> (10 * s + r) & 1 for s in range(4))) for r in (9, 8, 7, 6)]
    strength = sum((1.0, 0.6, 0.3)[9 - r] for s in range(4) for r in (9, 8, 7)
                   if mask >> (10 * s + r) & 1)
    return (*cards, *suits, *ranks, strength)


HAND_NAMES = tuple([f"holds {RANKS[c % 10]}{SUITS[c // 10]}" for c in _DECK]
                   + [f"{s} length" for s in SUITS]
                   + ["aces", "kings", "queens", "jacks", "strength"])
