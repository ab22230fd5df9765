"""One game of Sergeant Major: a state with legal_actions / apply / observation, per
docs/rules-sergeant-major.md. Three seats, 0 to 2; the seat after s (to its left) is s + 1.

Hands are bitmasks and tricks are scored from precomputed strength tables; `apply` checks
nothing (callers pick from `legal_actions()`, or check at the boundary: .protocol).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from itertools import combinations
from math import comb
from typing import Any

from engine.sergeant_major.cards import (
    BITS,
    CARD_NAMES,
    CHUNK_CARDS,
    PACK,
    SUITS,
    TRICK_KEYS,
    cards_mask,
    mask_cards,
    mask_names,
    suit_cards,
    suit_of,
)
from engine.sergeant_major.rules import SMRules

Action = int | tuple[int, ...]
Deal = tuple[tuple[int, int, int], int]  # three hand masks and the kitty mask
DealSource = Callable[[], Deal]

GIVE, RETURN, TRUMP, DISCARD, PLAY, OVER = range(6)
DECISIONS = ("give", "return", "trump", "discard", "play", None)
TRUMP_ACTIONS = (0, 1, 2, 3)
NEXT = (1, 2, 0)
_C0, _C1, _C2, _C3 = CHUNK_CARDS


class CardSets(Sequence[tuple[int, ...]]):
    """Every set of `size` cards of `cards`, as sorted tuples, without listing them: a
    discard of 4 from 20 has 4,845, a gift of 8 from 16 12,870. Indexing unranks (so a random
    player draws uniformly), `in` checks membership directly."""

    __slots__ = ("cards", "size", "mask", "_len")

    def __init__(self, cards: tuple[int, ...], size: int) -> None:
        self.cards = tuple(sorted(cards))
        self.size = size
        self.mask = cards_mask(self.cards)
        self._len = comb(len(self.cards), size)

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index: int) -> tuple[int, ...]:  # type: ignore[override]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(index)
        chosen, n, k = [], len(self.cards), self.size
        start = 0
        while k:  # the index-th set in lexicographic order (that of itertools.combinations)
            count = comb(n - start - 1, k - 1)
            if index < count:
                chosen.append(self.cards[start])
                k -= 1
            else:
                index -= count
            start += 1
        return tuple(chosen)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, tuple) or len(value) != self.size:
            return False
        mask = 0
        for card in value:
            if type(card) is not int or not 0 <= card < 52:
                return False
            mask |= 1 << card
        return mask.bit_count() == self.size and mask & ~self.mask == 0

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return combinations(self.cards, self.size)

    def __repr__(self) -> str:
        return f"CardSets({len(self.cards)} cards, {self.size} at a time)"


def targets_for(rules: SMRules, dealer: int) -> tuple[int, int, int]:
    """The targets by seat when `dealer` deals: dealer, the dealer's left, the dealer's right."""
    targets = [0, 0, 0]
    for offset, target in enumerate(rules.targets):
        targets[(dealer + offset) % 3] = target
    return targets[0], targets[1], targets[2]


def plan_exchanges(last: Sequence[int], targets: Sequence[int]) -> list[tuple[int, int, int]]:
    """(giver, receiver, cards) of each exchange, in order, from the last hand's ups and downs.

    Givers (up) in order of their coming target, highest first; each gives to the players
    who were down, lowest coming target first, as many cards as it is still up and the
    receiver is still down. Ups and downs add up to zero, so every trick is settled."""
    ups = sorted((s for s in range(3) if last[s] > 0), key=lambda s: -targets[s])
    downs = sorted((s for s in range(3) if last[s] < 0), key=lambda s: targets[s])
    owed = {s: -last[s] for s in downs}
    plan = []
    for giver in ups:
        left = last[giver]
        for receiver in downs:
            count = min(left, owed[receiver])
            if count > 0:
                plan.append((giver, receiver, count))
                left -= count
                owed[receiver] -= count
    return plan


def forced_return(hand: int, given: tuple[int, ...]) -> tuple[int, ...]:
    """What a receiver holding `hand` (the given cards already in it) must send back.

    Suit by suit, for each card received, highest first: the receiver's highest own card of
    that suit not yet sent back (own: not one just received) goes back if it is higher, else
    the received card itself (also when the receiver holds none of the suit)."""
    given_mask = cards_mask(given)
    own = hand & ~given_mask
    back = []
    for suit in {suit_of(c) for c in given}:
        mine = suit_cards(own, suit)
        used = 0
        for card in suit_cards(given_mask, suit):
            if used < len(mine) and mine[used] > card:
                back.append(mine[used])
                used += 1
            else:
                back.append(card)
    return tuple(sorted(back))


class DealSequence:
    """The seeded deals of a set of games (a match's three rotations share them): drawn once,
    in order, and handed to each game of the set from the first."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.drawn: list[Deal] = []

    def _draw(self) -> Deal:
        order = list(PACK)
        self.rng.shuffle(order)
        deal = ((cards_mask(order[0:16]), cards_mask(order[16:32]), cards_mask(order[32:48])),
                cards_mask(order[48:52]))
        self.drawn.append(deal)
        return deal

    def source(self) -> DealSource:
        """The set's deals from the first: those drawn already, then new ones."""
        position = 0

        def next_deal() -> Deal:
            nonlocal position
            position += 1
            return self.drawn[position - 1] if position <= len(self.drawn) else self._draw()

        return next_deal


def set_deals(seed: str, deal_set: int) -> tuple[int, DealSequence]:
    """The first dealer and the deals of set `deal_set` (games 3j..3j+2) of a match `seed`."""
    rng = random.Random(f"sergeant-major/{seed}/{deal_set}")
    return rng.randrange(3), DealSequence(rng)


class HandLog:
    """A finished (or interrupted) hand; `to_dict` gives the replay form."""

    __slots__ = ("dealer", "targets", "hands", "kitty", "exchanges", "trump", "discards",
                 "tricks", "taken", "delta", "score")

    def __init__(self, state: SMState) -> None:
        self.dealer = state.dealer
        self.targets = state.targets
        self.hands = state.dealt
        self.kitty = state.kitty
        self.exchanges = [tuple(x) for x in state.exchanges]
        self.trump = state.trump
        self.discards = state.discards
        self.tricks = list(state.tricks)
        self.taken: tuple[int, int, int] | None = None
        self.delta: tuple[int, int, int] | None = None
        self.score: tuple[int, int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        names = CARD_NAMES
        record: dict[str, Any] = {
            "dealer": self.dealer,
            "targets": list(self.targets),
            "hands": [mask_names(h) for h in self.hands],
            "kitty": mask_names(self.kitty),
            "exchanges": [_exchange_dict(x, None) for x in self.exchanges],
            "trump": SUITS[self.trump] if self.trump >= 0 else None,
            "discards": [names[c] for c in self.discards],
            "tricks": [{"leader": leader, "cards": [names[c] for c in cards], "winner": w}
                       for leader, cards, w in self.tricks],
        }
        if self.taken is not None:
            record["taken"] = list(self.taken)
            record["delta"] = list(self.delta or ())
            record["score"] = list(self.score or ())
        return record


Exchange = list[Any]  # [giver, receiver, count, given tuple | None, returned tuple | None]


def _exchange_dict(exchange: Exchange | tuple[Any, ...], seat: int | None) -> dict[str, Any]:
    """An exchange as the replay has it (seat None), or as `seat` may see it: the cards only
    to the giver and the receiver."""
    giver, receiver, count, given, returned = exchange
    shown = seat is None or seat in (giver, receiver)
    return {"giver": giver, "receiver": receiver, "count": count,
            "given": [CARD_NAMES[c] for c in given] if shown and given is not None else None,
            "returned": [CARD_NAMES[c] for c in returned]
            if shown and returned is not None else None}


class SMState:
    """A game from its first hand to a winner (or to the end of a fixed number of hands)."""

    __slots__ = ("rules", "game", "deals", "score", "dealer", "hands_played", "log", "phase",
                 "seat", "winner", "points", "last", "hands", "dealt", "kitty", "targets",
                 "exchanges", "plan", "trump", "discards", "tricks", "trick", "leader", "led",
                 "keys", "taken")
    # Set by _start_hand, _next_exchange and _set_trump; declared for the type checker.
    phase: int
    seat: int
    leader: int
    led: int

    def __init__(self, rules: SMRules, *, dealer: int, deals: DealSource, game: int = 0,
                 last: tuple[int, int, int] | None = None) -> None:
        """`last`: the ups and downs of a hand before the first (a game taken up in the
        middle, as the rules tests do); None starts a game, with no exchange."""
        self.rules = rules
        self.game = game
        self.deals = deals
        self.score = [0, 0, 0]
        self.dealer = dealer
        self.hands_played = 0
        self.log: list[HandLog] = []
        self.winner: int | None = None
        self.points: list[float] | None = None  # the game's points by seat, once it is over
        self.last = last  # the last hand's ups and downs
        self._start_hand()

    # --- the state API -------------------------------------------------------------------
    @property
    def decision(self) -> str | None:
        return DECISIONS[self.phase]

    @property
    def deal_index(self) -> int:
        return len(self.log)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> Sequence[Action]:
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.seat]
            if self.trick:
                follow = CHUNK_CARDS[self.led][hand >> (13 * self.led) & 8191]
                if follow:
                    return follow
            return (_C0[hand & 8191] + _C1[hand >> 13 & 8191] + _C2[hand >> 26 & 8191]
                    + _C3[hand >> 39 & 8191])
        if phase == GIVE:
            return CardSets(mask_cards(self.hands[self.seat]), self.exchanges[-1][2])
        if phase == RETURN:
            return (forced_return(self.hands[self.seat], self.exchanges[-1][3]),)
        if phase == TRUMP:
            return TRUMP_ACTIONS
        if phase == DISCARD:
            return CardSets(mask_cards(self.hands[self.seat]), self.rules.kitty)
        return ()

    def apply(self, action: Action) -> None:
        if self.phase != PLAY:
            self._apply_other(action)
            return
        seat = self.seat
        self.hands[seat] ^= BITS[action]  # type: ignore[index]
        trick = self.trick
        if not trick:
            self.led = action // 13  # type: ignore[operator]
        trick.append(action)  # type: ignore[arg-type]
        if len(trick) < 3:
            self.seat = NEXT[seat]
        else:
            self._finish_trick(trick)

    def _apply_other(self, action: Action) -> None:
        phase = self.phase
        if phase == GIVE:
            self._give(action)  # type: ignore[arg-type]
        elif phase == RETURN:
            self._return(action)  # type: ignore[arg-type]
        elif phase == TRUMP:
            self._set_trump(action)  # type: ignore[arg-type]
        elif phase == DISCARD:
            self._discard(action)  # type: ignore[arg-type]
        else:
            raise ValueError("the game is over")

    def observation(self, seat: int) -> dict[str, Any]:
        """What `seat` may know (the protocol's `state`, without `bank_ms`): never another
        hand, nor the cards of an exchange it is not part of, nor the kitty it has not taken,
        nor another seat's discards."""
        names = CARD_NAMES
        trick = None
        if self.phase == PLAY:
            trick = {"leader": self.leader, "cards": [names[c] for c in self.trick]}
        return {
            "game": self.game, "deal": len(self.log), "seat": seat, "dealer": self.dealer,
            "targets": list(self.targets), "score": list(self.score),
            "last": None if self.last is None else list(self.last),
            "hand": mask_names(self.hands[seat]),
            "exchanges": [_exchange_dict(x, seat) for x in self.exchanges],
            "trump": SUITS[self.trump] if self.trump >= 0 else None,
            "discards": [names[c] for c in self.discards] if seat == self.dealer else None,
            "tricks": [{"leader": ld, "cards": [names[c] for c in cs], "winner": w}
                       for ld, cs, w in self.tricks],
            "trick": trick,
            "taken": list(self.taken),
        }

    def records(self) -> list[dict[str, Any]]:
        return [entry.to_dict() for entry in self.log]

    def partial_record(self) -> dict[str, Any]:
        """The hand in progress, as a replay hand without taken, delta and score."""
        return HandLog(self).to_dict()

    # --- dealing and the exchange ----------------------------------------------------------
    def _start_hand(self) -> None:
        hands, kitty = self.deals()
        self.hands = list(hands)
        self.dealt = hands
        self.kitty = kitty
        self.targets = targets_for(self.rules, self.dealer)
        self.exchanges: list[Exchange] = []
        self.plan = plan_exchanges(self.last, self.targets) if self.last else []
        self.trump = -1
        self.discards: tuple[int, ...] = ()
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []
        self.trick: list[int] = []
        self.taken = [0, 0, 0]
        self._next_exchange()

    def _next_exchange(self) -> None:
        if self.plan:
            giver, receiver, count = self.plan.pop(0)
            self.exchanges.append([giver, receiver, count, None, None])
            self.phase, self.seat = GIVE, giver
            return
        self.phase, self.seat = TRUMP, self.dealer
        if self.rules.kitty_first:
            self.hands[self.dealer] |= self.kitty

    def _give(self, cards: tuple[int, ...]) -> None:
        exchange = self.exchanges[-1]
        cards = tuple(sorted(cards))
        mask = cards_mask(cards)
        self.hands[exchange[0]] &= ~mask
        self.hands[exchange[1]] |= mask
        exchange[3] = cards
        self.phase, self.seat = RETURN, exchange[1]

    def _return(self, cards: tuple[int, ...]) -> None:
        exchange = self.exchanges[-1]
        cards = tuple(sorted(cards))
        mask = cards_mask(cards)
        self.hands[exchange[1]] &= ~mask
        self.hands[exchange[0]] |= mask
        exchange[4] = cards
        self._next_exchange()

    def _set_trump(self, trump: int) -> None:
        self.trump = trump
        self.keys = TRICK_KEYS[trump]
        self.phase = DISCARD

    def _discard(self, cards: tuple[int, ...]) -> None:
        cards = tuple(sorted(cards))
        dealer = self.dealer
        self.hands[dealer] &= ~cards_mask(cards)
        if not self.rules.kitty_first:
            self.hands[dealer] |= self.kitty  # taken unseen, after the discard
        self.discards = cards
        self.phase = PLAY
        self.seat = self.leader = NEXT[dealer]

    # --- play and scoring --------------------------------------------------------------------
    def _finish_trick(self, trick: list[int]) -> None:
        keys = self.keys[self.led]
        c0, c1, c2 = trick
        best, w = keys[c0], 0
        if keys[c1] > best:
            best, w = keys[c1], 1
        if keys[c2] > best:
            w = 2
        winner = (self.leader + w) % 3
        self.taken[winner] += 1
        self.tricks.append((self.leader, (c0, c1, c2), winner))
        self.trick = []
        self.seat = self.leader = winner
        if not self.hands[winner]:
            self._score_hand()

    def _score_hand(self) -> None:
        taken, targets = self.taken, self.targets
        delta = (taken[0] - targets[0], taken[1] - targets[1], taken[2] - targets[2])
        for s in range(3):
            self.score[s] += delta[s]
        entry = HandLog(self)
        entry.taken = (taken[0], taken[1], taken[2])
        entry.delta = delta
        entry.score = (self.score[0], self.score[1], self.score[2])
        self.log.append(entry)
        self.hands_played += 1
        self.last = delta
        if self._game_over():
            self.phase = OVER
            return
        self.dealer = NEXT[self.dealer]
        self._start_hand()

    def _game_over(self) -> bool:
        rules = self.rules
        if rules.win_tricks is not None:
            for seat in range(3):
                if self.taken[seat] >= rules.win_tricks:
                    self.winner = seat
                    self.points = [float(s == seat) for s in range(3)]
                    return True
        if self.hands_played >= (rules.hands or rules.max_hands):
            self.points = points_by_score(self.score)
            top = [s for s in range(3) if self.points[s] > 0]
            self.winner = top[0] if len(top) == 1 else None
            return True
        return False


def points_by_score(score: Sequence[int]) -> list[float]:
    """A game decided on the totals: 1 to the top score, shared when several hold it."""
    best = max(score)
    top = [s for s in range(len(score)) if score[s] == best]
    return [1 / len(top) if s in top else 0.0 for s in range(len(score))]
