"""One game of Kaiser: a state with legal_actions / apply / observation, per docs/rules.md.

The hot path is `apply` during play: hands are bitmasks, tricks are scored from precomputed
strength tables, and nothing is validated (callers pick from `legal_actions()`, or check at
the boundary where untrusted input enters: engine.kaiser.protocol).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations, repeat, starmap
from typing import Any

from engine.kaiser.cards import (
    BID_NAMES,
    CARD_NAMES,
    CHUNK_CARDS,
    CHUNK_NAMES,
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
from engine.kaiser.rules import Rules

Action = bool | int | tuple[int, ...]
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
FOLLOWERS = tuple(((s + 1) & 3, (s + 2) & 3, (s + 3) & 3) for s in range(4))
_C0, _C1, _C2, _C3 = CHUNK_CARDS


def all_bids(rules: Rules) -> tuple[int, ...]:
    kinds = 1 + rules.no_trump + rules.low_no_trump
    return tuple(n * 3 + k for n in range(rules.min_bid, rules.max_bid + 1) for k in range(kinds))


BidOptions = tuple[tuple[tuple[int, ...], tuple[int, ...]] | None, ...]
_BID_OPTIONS: dict[Rules, BidOptions] = {}


def bid_options(rules: Rules) -> BidOptions:
    """The legal bids, by [highest bid so far + 1][the seat is the dealer]: computed once."""
    options = _BID_OPTIONS.get(rules)
    if options is None:
        bids = all_bids(rules)
        table: list[tuple[tuple[int, ...], tuple[int, ...]] | None] = [None] * (3 * 13 + 1)
        # Dealer's forced bid: after three passes the dealer may not pass.
        table[PASS + 1] = ((PASS, *bids), bids)
        for pos, high in enumerate(bids):
            # The dealer may equal the highest bid (the dealer's privilege); others must beat it.
            table[high + 1] = ((PASS, *bids[pos + 1:]), (PASS, *bids[pos:]))
        options = _BID_OPTIONS[rules] = tuple(table)
    return options


class ShuffledDeals:
    """The seeded deal sequence of a duplicate pair: both games draw the same shuffles in order.

    The deals drawn are kept, so the pair's second game can take them again (`again()`)
    instead of re-shuffling: 10 or 12 small tuples per game.
    """

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        self.bits = [1 << c for c in deck(rules)]
        self.positions = range(len(self.bits))
        self.rand = rng.random
        self.drawn: list[Deal] = []

    def __call__(self) -> Deal:
        # The pack sorted by random keys, one per card in pack order (uniform, and about
        # twice as fast as random.shuffle): starmap and sorted keep the shuffle in C.
        keys = list(starmap(self.rand, repeat((), len(self.bits))))
        order = list(map(self.bits.__getitem__, sorted(self.positions, key=keys.__getitem__)))
        deal = ((sum(order[0:8]), sum(order[8:16]), sum(order[16:24]), sum(order[24:32])),
                sum(order[32:]))
        self.drawn.append(deal)
        return deal

    def again(self) -> DealSource:
        """The deals drawn so far from the first, then new ones from the same generator:
        exactly the sequence a fresh source of the same pair gives."""
        drawn = self.drawn
        position = 0

        def next_deal() -> Deal:
            nonlocal position
            position += 1
            return drawn[position - 1] if position <= len(drawn) else self()

        return next_deal


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
        names, bid_names = CARD_NAMES, BID_NAMES
        n0, n1, n2, n3 = CHUNK_NAMES
        kitty, discards = self.kitty, self.discards
        record: dict[str, Any] = {
            "dealer": self.dealer,
            "hands": [[*n0[h & 1023], *n1[h >> 10 & 1023], *n2[h >> 20 & 1023], *n3[h >> 30]]
                      for h in self.hands],
            "kitty": mask_names(kitty) if kitty else [],
            "misdeal": None if self.misdeal is None else {"seat": self.misdeal},
            "bids": [{"seat": s, "bid": bid_names[b]} for s, b in self.bids],
            "contract": _contract_dict(self.contract),
            "discards": [names[c] for c in discards] if discards else [],
            "tricks": [{"leader": ld, "cards": [names[c0], names[c1], names[c2], names[c3]],
                        "winner": w} for ld, (c0, c1, c2, c3), w in self.tricks],
        }
        if self.points is not None:
            record["points"] = [*self.points]
            record["delta"] = [*(self.delta or ())]
            record["score"] = [*(self.score or ())]
        return record


def _contract_dict(contract: tuple[int, int, int] | None) -> dict[str, Any] | None:
    if contract is None:
        return None
    seat, bid, trump = contract
    # Null for no trump, and until the contractor names trump (self.trump is still -1).
    named = SUITS[trump] if 0 <= trump < NO_TRUMP else None
    return {"seat": seat, "bid": BID_NAMES[bid], "trump": named}


class GameState:
    """A game from its first deal to a winner (or a draw at max_deals)."""

    __slots__ = (
        "rules", "game", "deals", "score", "target", "dealer", "deals_played", "log", "phase",
        "seat", "winner", "hands", "dealt", "kitty", "bids", "high_bid", "high_seat",
        "contract_seat", "trump", "discards", "tricks", "trick", "leader", "led", "keys",
        "points", "misdeal_queue", "_bid_options", "_low", "first_deal",
    )
    # Set for each deal by _start_deal and _set_trump; declared for the type checker.
    phase: int
    seat: int
    leader: int

    def __init__(self, rules: Rules, *, dealer: int, deals: DealSource, game: int = 0,
                 first_deal: int = 0) -> None:
        """`first_deal`: the number of this state's first deal in its game, as observations
        give it (a deal played alone from a deal file keeps its place in the match)."""
        self.rules = rules
        self.game = game
        self.first_deal = first_deal
        self.deals = deals
        self.score = [0, 0]
        self.target = rules.target
        self.dealer = dealer
        self.deals_played = 0
        self.log: list[DealLog] = []
        self.winner: int | None = None
        self._bid_options = bid_options(rules)
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
            # mask_cards(hand), inlined
            return (_C0[hand & 1023] + _C1[hand >> 10 & 1023] + _C2[hand >> 20 & 1023]
                    + _C3[hand >> 30])
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
        self.hands[seat] ^= BITS[action]  # type: ignore[index]
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

    def play_uniform(self, rands: Sequence[Callable[[], float]]) -> None:
        """Play to the end of the game, seat s taking `legal[int(rands[s]() * len(legal))]`
        from `legal_actions()` at every decision: RandomPlayer.act, without a call per card.

        The play of a deal runs in `_play_uniform_tricks`; its choices, records and scores are
        those of legal_actions()/apply() (tests/engine/test_speed_paths.py holds them equal).
        """
        while self.phase != OVER:
            if self.phase == PLAY and not self.trick:
                self._play_uniform_tricks(rands)
            elif self.phase == BID and not self.bids:
                self._bid_uniform(rands)
            else:
                legal = self.legal_actions()
                self.apply(legal[int(rands[self.seat]() * len(legal))])

    def _bid_uniform(self, rands: Sequence[Callable[[], float]]) -> None:
        # A whole auction, then the trump if the contract is in a suit.
        options, dealer, bids = self._bid_options, self.dealer, self.bids
        seat, high, high_seat = self.seat, PASS, -1
        for _ in range(4):
            legal = options[high + 1][seat == dealer]  # type: ignore[index]
            bid = legal[int(rands[seat]() * len(legal))]
            bids.append((seat, bid))
            if bid != PASS:
                high, high_seat = bid, seat
            seat = (seat + 1) & 3
        self.high_bid, self.high_seat = high, high_seat
        self._close_auction()
        if self.phase == TRUMP:
            self._set_trump(TRUMP_ACTIONS[int(rands[self.seat]() * 4)])

    def _play_uniform_tricks(self, rands: Sequence[Callable[[], float]]) -> None:
        # legal_actions() and apply() for the rest of a deal, unrolled. Each hand is held as
        # four lists (C D H S, strongest first), so legal_actions() order is theirs: a lead
        # takes any card, a follower the led suit if it holds it, else any card.
        hands, keys_by_led, points = self.hands, self.keys, self.points
        append_trick = self.tricks.append
        c0s, c1s, c2s, c3s = CHUNK_CARDS
        suits = [[list(c0s[h & 1023]), list(c1s[h >> 10 & 1023]), list(c2s[h >> 20 & 1023]),
                  list(c3s[h >> 30])] for h in hands]
        s0 = self.leader
        for remaining in range(hands[s0].bit_count(), 0, -1):
            s1, s2, s3 = FOLLOWERS[s0]
            mine = suits[s0]
            a = (mine[0] + mine[1] + mine[2] + mine[3])[int(rands[s0]() * remaining)]
            led = a // 10
            mine[led].remove(a)
            same = suits[s1][led]
            if same:
                b = same.pop(int(rands[s1]() * len(same)))
            else:
                mine = suits[s1]
                b = (mine[0] + mine[1] + mine[2] + mine[3])[int(rands[s1]() * remaining)]
                mine[b // 10].remove(b)
            same = suits[s2][led]
            if same:
                c = same.pop(int(rands[s2]() * len(same)))
            else:
                mine = suits[s2]
                c = (mine[0] + mine[1] + mine[2] + mine[3])[int(rands[s2]() * remaining)]
                mine[c // 10].remove(c)
            same = suits[s3][led]
            if same:
                d = same.pop(int(rands[s3]() * len(same)))
            else:
                mine = suits[s3]
                d = (mine[0] + mine[1] + mine[2] + mine[3])[int(rands[s3]() * remaining)]
                mine[d // 10].remove(d)
            keys = keys_by_led[led]
            best, winner = keys[a], s0
            if keys[b] > best:
                best, winner = keys[b], s1
            if keys[c] > best:
                best, winner = keys[c], s2
            if keys[d] > best:
                winner = s3
            trick = (a, b, c, d)
            if FIVE_HEARTS in trick or THREE_SPADES in trick:
                points[winner & 1] += 1 + 5 * (FIVE_HEARTS in trick) - 3 * (THREE_SPADES in trick)
            else:
                points[winner & 1] += 1
            append_trick((s0, trick, winner))
            s0 = winner
        hands[:] = (0, 0, 0, 0)  # every card is played
        self.led = led
        self.seat = self.leader = s0
        self._score_deal()

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
            "game": self.game, "deal": self.first_deal + len(self.log), "seat": seat,
            "dealer": self.dealer,
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
        return self._bid_options[self.high_bid + 1][self.seat == self.dealer]  # type: ignore[index]

    def _bid(self, bid: int) -> None:
        seat = self.seat
        self.bids.append((seat, bid))
        if bid != PASS:
            self.high_bid = bid
            self.high_seat = seat
        if seat != self.dealer:
            self.seat = (seat + 1) & 3
        else:
            self._close_auction()

    def _close_auction(self) -> None:
        """The dealer has bid: the highest bidder holds the contract and names trump (or not)."""
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
        """End-of-game checks, bidding team first (docs/rules.md, "End of the game")."""
        score, target, lose_at = self.score, self.target, self.rules.lose_at
        for team in (bidders, 1 - bidders):
            if score[team] >= target:
                self.winner = team
                return True
            if lose_at is not None and score[team] <= lose_at:
                self.winner = 1 - team
                return True
        if self.deals_played >= self.rules.max_deals:
            self.winner = None if score[0] == score[1] else int(score[1] > score[0])
            return True
        return False


def bid_kind_of(bid: int) -> int:
    return bid % 3

