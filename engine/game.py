"""One game of Kaiser: a state with legal_actions / apply / observation, per kaiser-rules.md.

The hot path is `apply` during play: hands are bitmasks, tricks are scored from precomputed
strength tables, and nothing is validated (callers pick from `legal_actions()`, or check at
the boundary where untrusted input enters: engine.protocol).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Union

from engine.cards import (
    CARD_NAMES,
    CHUNK_CARDS,
    FIVE_HEARTS,
    FIVE_HEARTS_BIT,
    NO_TRUMP,
    PASS,
    SUITS,
    THREE_SPADES,
    THREE_SPADES_BIT,
    TRICK_KEYS,
    bid_str,
    deck,
    mask_cards,
    mask_names,
)
from engine.rules import Rules

Action = Union[bool, int, tuple[int, ...]]
Deal = tuple[tuple[int, int, int, int], int]  # four hand masks and the kitty mask
DealSource = Callable[[], Deal]

MISDEAL, BID, TRUMP, DISCARD, PLAY, OVER = range(6)
DECISIONS = ("misdeal", "bid", "trump", "discard", "play", None)
TRUMP_ACTIONS = (0, 1, 2, 3)
MISDEAL_ACTIONS = (True, False)
# A hand with none of these may be thrown in (misdeal rule): J Q K A of every suit, 5H, 3S.
HONOURS = sum(1 << (s * 10 + r) for s in range(4) for r in (6, 7, 8, 9)) | FIVE_HEARTS_BIT \
    | THREE_SPADES_BIT
PROTECTED = FIVE_HEARTS_BIT | THREE_SPADES_BIT  # never discarded
BITS = tuple(1 << c for c in range(40))


def all_bids(rules: Rules) -> tuple[int, ...]:
    kinds = 1 + rules.no_trump + rules.low_no_trump
    return tuple(n * 3 + k for n in range(rules.min_bid, rules.max_bid + 1) for k in range(kinds))


class ShuffledDeals:
    """The seeded deal sequence of a duplicate pair: both games draw the same shuffles in order."""

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        self.cards = deck(rules)
        self.kitty = rules.kitty
        self.rng = rng

    def __call__(self) -> Deal:
        # Sorting by random keys: about twice as fast as random.shuffle, and as uniform.
        rand = self.rng.random
        cards = sorted(self.cards, key=lambda _: rand())
        bit = BITS.__getitem__
        hands = (sum(map(bit, cards[0:8])), sum(map(bit, cards[8:16])),
                 sum(map(bit, cards[16:24])), sum(map(bit, cards[24:32])))
        return hands, sum(map(bit, cards[32:]))


def pair_deals(rules: Rules, seed: str, pair: int) -> tuple[int, ShuffledDeals]:
    """The first dealer and the deal source of duplicate pair `pair` of a match seeded `seed`."""
    rng = random.Random(f"kaiser/{seed}/{pair}")
    return rng.randrange(4), ShuffledDeals(rules, rng)


class DealLog:
    """A finished (or thrown-in) deal, kept compact; `to_dict` gives the replay form."""

    __slots__ = ("dealer", "hands", "kitty", "misdeal", "bids", "contract", "discards",
                 "tricks", "points", "delta", "score")

    def __init__(self, state: GameState) -> None:
        self.dealer = state.dealer
        self.hands = state.dealt
        self.kitty = state.kitty
        self.misdeal: int | None = None
        self.bids = state.bids
        self.contract = state.contract()
        self.discards = state.discards
        self.tricks = state.tricks
        self.points: tuple[int, int] | None = None
        self.delta: tuple[int, int] | None = None
        self.score: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        names = CARD_NAMES
        record: dict[str, Any] = {
            "dealer": self.dealer,
            "hands": [mask_names(h) for h in self.hands],
            "kitty": mask_names(self.kitty),
            "misdeal": None if self.misdeal is None else {"seat": self.misdeal},
            "bids": [{"seat": s, "bid": bid_str(b)} for s, b in self.bids],
            "contract": _contract_dict(self.contract),
            "discards": [names[c] for c in self.discards],
            "tricks": [{"leader": ld, "cards": [names[c0], names[c1], names[c2], names[c3]],
                        "winner": w} for ld, (c0, c1, c2, c3), w in self.tricks],
        }
        if self.points is not None:
            record["points"] = list(self.points)
            record["delta"] = list(self.delta or ())
            record["score"] = list(self.score or ())
        return record


def _contract_dict(contract: tuple[int, int, int] | None) -> dict[str, Any] | None:
    if contract is None:
        return None
    seat, bid, trump = contract
    # Null for no trump, and until the contractor names trump (self.trump is still -1).
    named = SUITS[trump] if 0 <= trump < NO_TRUMP else None
    return {"seat": seat, "bid": bid_str(bid), "trump": named}


class GameState:
    """A game from its first deal to a winner (or a draw at max_deals)."""

    __slots__ = (
        "rules", "game", "deals", "score", "target", "dealer", "deals_played", "log", "phase",
        "seat", "winner", "hands", "dealt", "kitty", "bids", "high_bid", "high_seat",
        "contract_seat", "trump", "discards", "tricks", "trick", "leader", "led", "keys",
        "points", "misdeal_queue", "_bids", "_bid_pos", "_low",
    )
    # Set for each deal by _start_deal and _set_trump; declared for the type checker.
    phase: int
    seat: int
    leader: int

    def __init__(self, rules: Rules, *, dealer: int, deals: DealSource, game: int = 0) -> None:
        self.rules = rules
        self.game = game
        self.deals = deals
        self.score = [0, 0]
        self.target = rules.target
        self.dealer = dealer
        self.deals_played = 0
        self.log: list[DealLog] = []
        self.winner: int | None = None
        self._bids = all_bids(rules)
        self._bid_pos = {b: i for i, b in enumerate(self._bids)}
        self._start_deal()

    # --- the state API -------------------------------------------------------------------
    @property
    def decision(self) -> str | None:
        return DECISIONS[self.phase]

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> Sequence[Action]:
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.seat]
            if self.trick:
                led = self.led
                follow = CHUNK_CARDS[led][hand >> (10 * led) & 1023]
                if follow:
                    return follow
            return mask_cards(hand)
        if phase == BID:
            return self._legal_bids()
        if phase == TRUMP:
            return TRUMP_ACTIONS
        if phase == DISCARD:
            return self._legal_discards()
        if phase == MISDEAL:
            return MISDEAL_ACTIONS
        return ()

    def apply(self, action: Action) -> None:
        if self.phase != PLAY:
            self._apply_other(action)
            return
        # Playing a card: the hot path, inlined.
        seat = self.seat
        self.hands[seat] ^= 1 << action  # type: ignore[operator]
        trick = self.trick
        if not trick:
            self.led = action // 10  # type: ignore[operator]
        trick.append(action)  # type: ignore[arg-type]
        if len(trick) < 4:
            self.seat = (seat + 1) & 3
        else:
            self._finish_trick(trick)

    def _apply_other(self, action: Action) -> None:
        if self.phase == BID:
            self._bid(action)  # type: ignore[arg-type]
        elif self.phase == TRUMP:
            self._set_trump(action)  # type: ignore[arg-type]
        elif self.phase == DISCARD:
            self._discard(action)  # type: ignore[arg-type]
        elif self.phase == MISDEAL:
            self._misdeal(bool(action))
        else:
            raise ValueError("the game is over")

    def contract(self) -> tuple[int, int, int] | None:
        if self.contract_seat < 0:
            return None
        return self.contract_seat, self.high_bid, self.trump

    @property
    def deal_index(self) -> int:
        """Index of the current deal in this game's replay `deals` (thrown-in deals included)."""
        return len(self.log)

    def observation(self, seat: int) -> dict[str, Any]:
        """What `seat` may know (the protocol's `state`, without `bank_ms`): never other hands."""
        names = CARD_NAMES
        trick = None
        if self.phase == PLAY:
            trick = {"leader": self.leader, "cards": [names[c] for c in self.trick]}
        return {
            "game": self.game, "deal": len(self.log), "seat": seat, "dealer": self.dealer,
            "score": list(self.score),
            "hand": mask_names(self.hands[seat]),
            "bids": [{"seat": s, "bid": bid_str(b)} for s, b in self.bids],
            "contract": _contract_dict(self.contract()),
            "tricks": [{"leader": ld, "cards": [names[c] for c in cs], "winner": w}
                       for ld, cs, w in self.tricks],
            "trick": trick,
        }

    def records(self) -> list[dict[str, Any]]:
        return [entry.to_dict() for entry in self.log]

    def partial_record(self) -> dict[str, Any]:
        """The deal in progress, as a replay deal without points, delta and score."""
        return DealLog(self).to_dict()

    # --- dealing and bidding ---------------------------------------------------------------
    def _start_deal(self) -> None:
        hands, kitty = self.deals()
        self.hands = list(hands)
        self.dealt = hands
        self.kitty = kitty
        self.bids: list[tuple[int, int]] = []
        self.high_bid = PASS
        self.high_seat = -1
        self.contract_seat = -1
        self.trump = -1
        self.discards: tuple[int, ...] = ()
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []
        self.trick: list[int] = []
        self.points = [0, 0]
        first = (self.dealer + 1) & 3
        self.seat = first
        self.phase = BID
        if self.rules.misdeal:
            order = [(first + i) & 3 for i in range(4)]
            self.misdeal_queue = [s for s in order if not hands[s] & HONOURS]
            if self.misdeal_queue:
                self.phase = MISDEAL
                self.seat = self.misdeal_queue.pop(0)

    def _misdeal(self, throw_in: bool) -> None:
        if throw_in:
            entry = DealLog(self)
            entry.misdeal = self.seat
            self.log.append(entry)
            self._start_deal()  # the same dealer deals again
        elif self.misdeal_queue:
            self.seat = self.misdeal_queue.pop(0)
        else:
            self.phase = BID
            self.seat = (self.dealer + 1) & 3

    def _legal_bids(self) -> tuple[int, ...]:
        bids = self._bids
        if self.high_bid == PASS:
            # Dealer's forced bid: after three passes the dealer may not pass.
            return bids if self.seat == self.dealer else (PASS, *bids)
        pos = self._bid_pos[self.high_bid]
        # The dealer may equal the highest bid (the dealer's privilege); others must beat it.
        return (PASS, *bids[pos if self.seat == self.dealer else pos + 1:])

    def _bid(self, bid: int) -> None:
        seat = self.seat
        self.bids.append((seat, bid))
        if bid != PASS:
            self.high_bid = bid
            self.high_seat = seat
        if seat != self.dealer:
            self.seat = (seat + 1) & 3
            return
        self.contract_seat = self.high_seat
        self.seat = self.high_seat
        if bid_kind_of(self.high_bid) == 0:
            self.phase = TRUMP
        else:
            self._set_trump(NO_TRUMP)

    def _set_trump(self, trump: int) -> None:
        self.trump = trump
        self._low = bid_kind_of(self.high_bid) == 2
        self.keys = TRICK_KEYS[self._low][trump]
        self.seat = self.leader = self.contract_seat
        if self.rules.kitty:
            self.hands[self.seat] |= self.kitty
            self.phase = DISCARD
        else:
            self.phase = PLAY

    def _legal_discards(self) -> list[tuple[int, ...]]:
        cards = sorted(mask_cards(self.hands[self.seat] & ~PROTECTED))
        return list(combinations(cards, self.rules.kitty))

    def _discard(self, cards: tuple[int, ...]) -> None:
        cards = tuple(sorted(cards))
        for c in cards:
            self.hands[self.seat] &= ~(1 << c)
        self.discards = cards
        self.phase = PLAY

    # --- play and scoring --------------------------------------------------------------------
    def _finish_trick(self, trick: list[int]) -> None:
        keys = self.keys[self.led]
        c0, c1, c2, c3 = trick
        best, w = keys[c0], 0
        if keys[c1] > best:
            best, w = keys[c1], 1
        if keys[c2] > best:
            best, w = keys[c2], 2
        if keys[c3] > best:
            w = 3
        winner = (self.leader + w) & 3
        points = 1
        if FIVE_HEARTS in trick:
            points += 5
        if THREE_SPADES in trick:
            points -= 3
        self.points[winner & 1] += points
        self.tricks.append((self.leader, tuple(trick), winner))
        self.trick = []
        self.seat = self.leader = winner
        if not self.hands[winner]:
            self._score_deal()

    def _score_deal(self) -> None:
        rules = self.rules
        bidders = self.contract_seat & 1
        others = 1 - bidders
        number, kind = divmod(self.high_bid, 3)
        m = 2 if kind else 1
        p_bid, p_opp = self.points[bidders], self.points[others]
        made = p_bid >= number
        delta = [0, 0]
        delta[bidders] = p_bid * m if made else -number * m
        # The lockout stops gains, not losses.
        delta[others] = p_opp if self.score[others] < rules.lockout else min(p_opp, 0)
        self.score[0] += delta[0]
        self.score[1] += delta[1]
        if made and kind and rules.target_after_no_trump is not None:
            self.target = max(self.target, rules.target_after_no_trump)
        entry = DealLog(self)
        entry.points = (self.points[0], self.points[1])
        entry.delta = (delta[0], delta[1])
        entry.score = (self.score[0], self.score[1])
        self.log.append(entry)
        self.deals_played += 1
        if self._game_over(bidders):
            self.phase = OVER
            return
        self.dealer = (self.dealer + 1) & 3
        self._start_deal()

    def _game_over(self, bidders: int) -> bool:
        """End-of-game checks, bidding team first (kaiser-rules.md, "End of the game")."""
        others = 1 - bidders
        target, lose_at = self.target, self.rules.lose_at
        score = self.score
        if score[bidders] >= target:
            self.winner = bidders
        elif lose_at is not None and score[bidders] <= lose_at:
            self.winner = others
        elif score[others] >= target:
            self.winner = others
        elif lose_at is not None and score[others] <= lose_at:
            self.winner = bidders
        elif self.deals_played >= self.rules.max_deals:
            self.winner = None if score[0] == score[1] else int(score[1] > score[0])
            return True
        else:
            return False
        return True


def bid_kind_of(bid: int) -> int:
    return bid % 3

