"""One game of Quartet: a state with legal_actions / apply / observation. Four seats, 0 to 3;
the dealer moves one seat on each deal and the next seat leads the first trick.

`apply` checks nothing: callers pick from `legal_actions()` or check at the boundary
(.protocol)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from tests.games.quartet.cards import CARD_NAMES, PACK, mask_cards, mask_names, suit_of
from tests.games.quartet.rules import QuartetRules

Deal = tuple[int, int, int, int]  # the four hands' masks
DealSource = Callable[[], Deal]
HAND = 4  # cards to each seat
SEATS = 4
PLAY, OVER = 0, 1
DECISIONS = ("play", None)


class DealSequence:
    """The seeded deals of a set of games (its four games share them): drawn once, in order,
    and handed to each game of the set from the first."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.drawn: list[Deal] = []

    def source(self) -> DealSource:
        position = 0

        def next_deal() -> Deal:
            nonlocal position
            position += 1
            if position > len(self.drawn):
                order = list(PACK)
                self.rng.shuffle(order)
                self.drawn.append((_mask(order[:HAND]), _mask(order[HAND:2 * HAND]),
                                   _mask(order[2 * HAND:3 * HAND]), _mask(order[3 * HAND:])))
            return self.drawn[position - 1]

        return next_deal


def set_deals(seed: str, deal_set: int) -> tuple[int, DealSequence]:
    """The first dealer and the deals of set `deal_set` (games 4j to 4j + 3) of match `seed`."""
    rng = random.Random(f"quartet/{seed}/{deal_set}")
    return rng.randrange(SEATS), DealSequence(rng)


def _mask(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def trick_winner(leader: int, cards: Sequence[int]) -> int:
    """The seat that wins a trick of four cards (the leader's first): the highest of the suit
    led."""
    led = suit_of(cards[0])
    best = max(range(len(cards)), key=lambda i: cards[i] if suit_of(cards[i]) == led else -1)
    return (leader + best) % SEATS


class DealLog:
    """A finished (or interrupted) deal; `to_dict` gives the replay form."""

    __slots__ = ("dealer", "hands", "tricks", "taken", "score")

    def __init__(self, state: QuartetState) -> None:
        self.dealer = state.dealer
        self.hands = state.dealt
        self.tricks = list(state.tricks)
        self.taken: tuple[int, ...] | None = None
        self.score: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "dealer": self.dealer,
            "hands": [mask_names(h) for h in self.hands],
            "tricks": [{"leader": leader, "cards": [CARD_NAMES[c] for c in cards],
                        "winner": winner} for leader, cards, winner in self.tricks],
        }
        if self.taken is not None:
            record["taken"] = list(self.taken)
            record["score"] = list(self.score or ())
        return record


class QuartetState:
    """A game from its first deal to its last; `score` is each seat's tricks so far."""

    # Set by _start_deal, each deal; declared for the type checker.
    seat: int
    leader: int
    dealt: Deal
    hands: list[int]
    tricks: list[tuple[int, tuple[int, ...], int]]
    trick: list[int]
    taken: list[int]

    def __init__(self, rules: QuartetRules, *, dealer: int, deals: DealSource,
                 game: int = 0) -> None:
        self.rules = rules
        self.game = game
        self.deals = deals
        self.dealer = dealer
        self.score = [0] * SEATS
        self.log: list[DealLog] = []
        self.winner: int | None = None
        self.phase = PLAY
        self._start_deal()

    # --- the state API -------------------------------------------------------------------
    @property
    def decision(self) -> str | None:
        return DECISIONS[self.phase]

    @property
    def deal_index(self) -> int:
        return len(self.log)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> tuple[int, ...]:
        if self.phase == OVER:
            return ()
        cards = mask_cards(self.hands[self.seat])
        if self.trick:
            led = suit_of(self.trick[0])
            follow = tuple(c for c in cards if suit_of(c) == led)
            if follow:
                return follow
        return cards

    def apply(self, action: int) -> None:
        if self.phase == OVER:
            raise ValueError("the game is over")
        self.hands[self.seat] &= ~(1 << action)
        self.trick.append(action)
        if len(self.trick) < SEATS:
            self.seat = (self.seat + 1) % SEATS
        else:
            self._finish_trick()

    def observation(self, seat: int) -> dict[str, Any]:
        """What `seat` may know (the protocol's `state`, without `bank_ms`): never the other
        hand."""
        return {
            "game": self.game, "deal": len(self.log), "seat": seat, "dealer": self.dealer,
            "hand": mask_names(self.hands[seat]),
            "trick": {"leader": self.leader, "cards": [CARD_NAMES[c] for c in self.trick]},
            "tricks": [{"leader": ld, "cards": [CARD_NAMES[c] for c in cs], "winner": w}
                       for ld, cs, w in self.tricks],
            "taken": list(self.taken),  # this deal's tricks by seat
            "score": list(self.score),  # this game's tricks by seat
        }

    def records(self) -> list[dict[str, Any]]:
        return [entry.to_dict() for entry in self.log]

    def partial_record(self) -> dict[str, Any]:
        """The deal in progress, as a replay deal without taken and score."""
        return DealLog(self).to_dict()

    # --- dealing, play and scoring -----------------------------------------------------------
    def _start_deal(self) -> None:
        hands = self.deals()
        self.dealt = hands
        self.hands = list(hands)
        self.tricks = []
        self.trick = []
        self.taken = [0] * SEATS
        self.seat = self.leader = (self.dealer + 1) % SEATS

    def _finish_trick(self) -> None:
        leader = self.leader
        cards = tuple(self.trick)
        winner = trick_winner(leader, cards)
        self.taken[winner] += 1
        self.score[winner] += 1
        self.tricks.append((leader, cards, winner))
        self.trick = []
        self.seat = self.leader = winner
        if not any(self.hands):
            self._score_deal()

    def _score_deal(self) -> None:
        entry = DealLog(self)
        entry.taken = tuple(self.taken)
        entry.score = tuple(self.score)
        self.log.append(entry)
        if len(self.log) < self.rules.deals:
            self.dealer = (self.dealer + 1) % SEATS
            self._start_deal()
            return
        self.phase = OVER
        top = max(self.score)
        if self.score.count(top) == 1:
            self.winner = self.score.index(top)
