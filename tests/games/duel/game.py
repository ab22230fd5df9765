"""One game of Duel: a state with legal_actions / apply / observation. Two seats, 0 and 1;
the dealer alternates each deal and the dealer's opponent leads the first trick.

`apply` checks nothing: callers pick from `legal_actions()` or check at the boundary
(.protocol)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from tests.games.duel.cards import CARD_NAMES, PACK, mask_cards, mask_names, suit_of
from tests.games.duel.rules import DuelRules

Deal = tuple[int, int]  # the two hands' masks
DealSource = Callable[[], Deal]
HAND = 4  # cards to each seat
PLAY, OVER = 0, 1
DECISIONS = ("play", None)


class DealSequence:
    """The seeded deals of a set of games (its two games share them): drawn once, in order,
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
                self.drawn.append((_mask(order[:HAND]), _mask(order[HAND:2 * HAND])))
            return self.drawn[position - 1]

        return next_deal


def set_deals(seed: str, deal_set: int) -> tuple[int, DealSequence]:
    """The first dealer and the deals of set `deal_set` (games 2j and 2j + 1) of match `seed`."""
    rng = random.Random(f"duel/{seed}/{deal_set}")
    return rng.randrange(2), DealSequence(rng)


def _mask(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def trick_winner(leader: int, cards: Sequence[int]) -> int:
    """The seat that wins a trick of two cards (the leader's first): the higher of the suit led."""
    led, second = cards
    if suit_of(second) == suit_of(led) and second > led:
        return 1 - leader
    return leader


class DealLog:
    """A finished (or interrupted) deal; `to_dict` gives the replay form."""

    __slots__ = ("dealer", "hands", "tricks", "taken", "score")

    def __init__(self, state: DuelState) -> None:
        self.dealer = state.dealer
        self.hands = state.dealt
        self.tricks = list(state.tricks)
        self.taken: tuple[int, int] | None = None
        self.score: tuple[int, int] | None = None

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


class DuelState:
    """A game from its first deal to its last; `score` is each seat's tricks so far."""

    # Set by _start_deal, each deal; declared for the type checker.
    seat: int
    leader: int
    dealt: Deal
    hands: list[int]
    tricks: list[tuple[int, tuple[int, int], int]]
    trick: list[int]
    taken: list[int]

    def __init__(self, rules: DuelRules, *, dealer: int, deals: DealSource,
                 game: int = 0) -> None:
        self.rules = rules
        self.game = game
        self.deals = deals
        self.dealer = dealer
        self.score = [0, 0]
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
        if len(self.trick) == 1:
            self.seat = 1 - self.seat
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
        self.taken = [0, 0]
        self.seat = self.leader = 1 - self.dealer

    def _finish_trick(self) -> None:
        leader = self.leader
        cards = (self.trick[0], self.trick[1])
        winner = trick_winner(leader, cards)
        self.taken[winner] += 1
        self.score[winner] += 1
        self.tricks.append((leader, cards, winner))
        self.trick = []
        self.seat = self.leader = winner
        if not self.hands[0] and not self.hands[1]:
            self._score_deal()

    def _score_deal(self) -> None:
        entry = DealLog(self)
        entry.taken = (self.taken[0], self.taken[1])
        entry.score = (self.score[0], self.score[1])
        self.log.append(entry)
        if len(self.log) < self.rules.deals:
            self.dealer = 1 - self.dealer
            self._start_deal()
            return
        self.phase = OVER
        if self.score[0] != self.score[1]:
            self.winner = 0 if self.score[0] > self.score[1] else 1
