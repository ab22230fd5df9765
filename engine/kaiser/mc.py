"""`builtin:mc`: a Monte Carlo player (perfect-information sampling with fast rollouts).

For each decision it deals the cards it cannot see at random, consistently with what its seat
knows (engine.kaiser.sampling: its hand, the cards played, voids, its own discards), plays each
candidate action out to the end of the deal with a cheap greedy-like policy for all four seats,
and picks the action with the best average value. The value of a deal is the change in the
score difference it brings, from the contract's scoring (a set contract costs the bid), plus a
bonus or malus when the deal ends the game.

Bidding simulates the rest of the auction too: the other seats bid as `builtin:greedy` would
with their sampled hands, so passing, bidding low and bidding high are compared by the
contracts and outcomes they actually lead to. Sampled hands are also weighed by that model:
deals in which the earlier bidders would have bid as they did are preferred.

It sees only `state.observation(seat)` and the `legal` list, plus its own memory of its
discards; each decision is seeded from the match seed and the observation's position, so it is
reproducible and independent of anything hidden.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.kaiser.cards import (
    CHUNK_CARDS,
    FIVE_HEARTS,
    NO_TRUMP,
    PASS,
    SUIT_MASKS,
    THREE_SPADES,
    TRICK_KEYS,
    cards_mask,
    deck,
    mask_cards,
)
from engine.kaiser.game import BID, DECISIONS, DISCARD, MISDEAL, PLAY, PROTECTED, TRUMP, all_bids
from engine.kaiser.greedy import PARTNER_POINTS, hand_points, suit_strength
from engine.kaiser.sampling import EXTRA, View, sample_deal, view_from_observation
from engine.seeded import SeededPlayer

if TYPE_CHECKING:
    from engine.kaiser.game import Action, GameState
    from engine.kaiser.rules import Rules
    from engine.players import TimeControl

WIN_BONUS = 40.0  # a deal that ends the game is worth this much beyond its points
PLAY_ROLLOUTS = 240  # rollouts per card decision, shared among the legal cards
PLAY_SAMPLES = (8, 40)  # at least, at most this many sampled deals per card decision
BID_SAMPLES = 32
TRUMP_SAMPLES = 32
DISCARD_CANDIDATES = 6
DISCARD_SAMPLES = 24
SAMPLE_TRIES = 3  # deals drawn per deal kept, when weighing by the bidding
SPADES_MASK = SUIT_MASKS[3]
FIVE_BIT = 1 << FIVE_HEARTS
THREE_BIT = 1 << THREE_SPADES


# --- the rollout: one deal played to its end by a cheap policy ------------------------------
@dataclass(frozen=True, slots=True)
class Table:
    """The trick keys and per-card 'higher cards of the suit' masks of one contract."""

    keys: tuple[tuple[int, ...], ...]  # keys[led][card], as engine.kaiser.cards.TRICK_KEYS
    lead_keys: tuple[int, ...]  # a card's key if it is led
    higher: tuple[int, ...]  # cards of the same suit that beat it
    trump: int
    bidders: int  # the contracting team
    deck: int


@lru_cache(maxsize=64)
def contract_table(trump: int, low: bool, bidders: int, deck_mask: int) -> Table:
    keys = TRICK_KEYS[low][trump]
    lead_keys = tuple(keys[c // 10][c] for c in range(40))
    higher = tuple(
        sum(1 << d for d in range(c - c % 10, c - c % 10 + 10)
            if lead_keys[d] > lead_keys[c] and deck_mask >> d & 1)
        for c in range(40)
    )
    return Table(keys, lead_keys, higher, trump, bidders, deck_mask)


def _lead(hand: int, seat: int, played: int, t: Table) -> int:
    outstanding = t.deck & ~played & ~hand
    higher = t.higher
    if seat & 1 == t.bidders and t.trump != NO_TRUMP:
        trumps = CHUNK_CARDS[t.trump][hand >> (10 * t.trump) & 1023]
        if trumps and not higher[trumps[0]] & outstanding:
            return trumps[0]
    cards = mask_cards(hand)
    for c in cards:
        if c != FIVE_HEARTS and c != THREE_SPADES and not higher[c] & outstanding:
            return c
    if hand & SPADES_MASK == 1 << THREE_SPADES:
        return THREE_SPADES  # a singleton 3S: the partner may duck it to the opponents
    keys = t.lead_keys
    return min(cards, key=lambda c: (c == FIVE_HEARTS, keys[c]))


def _follow(hand: int, trick: list[int], played: int, t: Table) -> int:
    led = trick[0] // 10
    legal = hand & SUIT_MASKS[led] or hand
    if not legal & (legal - 1):
        return legal.bit_length() - 1  # a single card
    cards = mask_cards(legal)
    keys = t.keys[led]
    n = len(trick)
    best, best_key = 0, keys[trick[0]]
    if n > 1 and keys[trick[1]] > best_key:
        best, best_key = 1, keys[trick[1]]
    if n > 2 and keys[trick[2]] > best_key:
        best, best_key = 2, keys[trick[2]]
    partner_winning = n - best == 2
    last = n == 3
    if partner_winning and (last or not t.higher[trick[best]] & t.deck & ~played & ~hand):
        if legal & FIVE_BIT:
            return FIVE_HEARTS
        if legal & THREE_BIT:
            return min([c for c in cards if c != THREE_SPADES] or cards, key=keys.__getitem__)
        return min(cards, key=keys.__getitem__)
    has_five = FIVE_HEARTS in trick
    has_three = THREE_SPADES in trick
    winners = [c for c in cards if keys[c] > best_key]
    losers = [c for c in cards if keys[c] <= best_key]
    if has_three and not partner_winning and losers:
        return _dump(losers, keys)
    if winners and (has_five or last or not has_three):
        if last or has_five:
            return min(winners, key=lambda c: (c == FIVE_HEARTS, keys[c]))
        top = max(winners, key=keys.__getitem__)
        if keys[top] >= 20 or not t.higher[top] & t.deck & ~played & ~hand:
            return top if top != FIVE_HEARTS else min(winners, key=keys.__getitem__)
    if THREE_SPADES in cards and not partner_winning:
        return THREE_SPADES
    return _dump(losers or list(cards), keys)


def _dump(cards: Sequence[int], keys: Sequence[int]) -> int:
    pool = [c for c in cards if c != FIVE_HEARTS] or list(cards)
    if THREE_SPADES in pool:
        return THREE_SPADES
    return min(pool, key=keys.__getitem__)


def play_out(hands: list[int], trick: list[int], leader: int, played: int, points: list[int],
             t: Table, first: int = -1) -> None:
    """Play the deal to its end in place (`first`: the card the seat to act plays now);
    `points` gains each team's points."""
    seat = (leader + len(trick)) & 3
    keys_by_led = t.keys
    while True:
        hand = hands[seat]
        if not hand:
            return
        if first >= 0:
            card, first = first, -1
        elif trick:
            card = _follow(hand, trick, played, t)
        else:
            card = _lead(hand, seat, played, t)
        hands[seat] = hand ^ (1 << card)
        played |= 1 << card
        trick.append(card)
        if len(trick) < 4:
            seat = (seat + 1) & 3
            continue
        c0, c1, c2, c3 = trick
        keys = keys_by_led[c0 // 10]
        best, w = keys[c0], 0
        if keys[c1] > best:
            best, w = keys[c1], 1
        if keys[c2] > best:
            best, w = keys[c2], 2
        if keys[c3] > best:
            w = 3
        seat = leader = (leader + w) & 3
        value = 1
        if played_specials := (1 << c0 | 1 << c1 | 1 << c2 | 1 << c3) & PROTECTED:
            value += (5 if played_specials & FIVE_BIT else 0) - (3 if played_specials & THREE_BIT
                                                                 else 0)
        points[seat & 1] += value
        trick = []


# --- the value of a deal's outcome -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Stakes:
    """What the game looks like to `team` before the deal: its value of each possible result."""

    rules: Rules
    score: tuple[int, int]
    team: int

    def value(self, contract_seat: int, bid: int, bidder_points: int) -> float:
        return _deal_value(self, contract_seat & 1, bid, bidder_points)


@lru_cache(maxsize=4096)
def _deal_value(stakes: Stakes, bidders: int, bid: int, p_bid: int) -> float:
    rules = stakes.rules
    number, kind = divmod(bid, 3)
    m = 2 if kind else 1
    others = 1 - bidders
    score = list(stakes.score)
    delta = [0, 0]
    delta[bidders] = p_bid * m if p_bid >= number else -number * m
    p_opp = 10 - p_bid
    delta[others] = p_opp if score[others] < rules.lockout else min(p_opp, 0)
    after = [score[0] + delta[0], score[1] + delta[1]]
    team = stakes.team
    value = float(delta[team] - delta[1 - team])
    winner = _winner(after, bidders, rules)
    if winner is not None:
        value += WIN_BONUS if winner == team else -WIN_BONUS
    return value


def _winner(score: list[int], bidders: int, rules: Rules) -> int | None:
    others = 1 - bidders
    lose_at = rules.lose_at
    if score[bidders] >= rules.target:
        return bidders
    if lose_at is not None and score[bidders] <= lose_at:
        return others
    if score[others] >= rules.target:
        return others
    if lose_at is not None and score[others] <= lose_at:
        return bidders
    return None


# --- a model of the others' bidding (builtin:greedy's rule) -------------------------------------
def _strength_tables() -> tuple[tuple[float, ...], ...]:
    """greedy.suit_strength of every 10-bit suit pattern: as trump, beside a trump, in NT."""
    return tuple(tuple(suit_strength(pattern, 0, trump) for pattern in range(1024))
                 for trump in (0, 1, NO_TRUMP))


AS_TRUMP, SIDE_SUIT, IN_NO_TRUMP = _strength_tables()
LENGTH = tuple(bin(p).count("1") for p in range(1024))


def fast_hand_points(hand: int, trump: int) -> float:
    """greedy.hand_points from lookup tables (the same numbers, a tenth of the time)."""
    chunks = (hand & 1023, hand >> 10 & 1023, hand >> 20 & 1023, hand >> 30 & 1023)
    if trump == NO_TRUMP:
        tricks = sum(IN_NO_TRUMP[c] for c in chunks)
    else:
        tricks = 0.0
        short = 0
        for s, c in enumerate(chunks):
            if s == trump:
                tricks += AS_TRUMP[c]
            else:
                tricks += SIDE_SUIT[c]
                short += LENGTH[c] <= 1
        tricks += 0.4 * short * min(1, LENGTH[chunks[trump]] // 3)
    if hand >> FIVE_HEARTS & 1:
        tricks += 3.0 if trump == 2 or LENGTH[chunks[2]] >= 3 else 2.0
    if hand >> THREE_SPADES & 1:
        tricks -= 1.5
    return tricks


def model_estimates(hand: int) -> tuple[float, float, int]:
    """(suit estimate, no-trump estimate, best trump) as builtin:greedy bids them."""
    per_trump = [fast_hand_points(hand, t) for t in range(4)]
    best = max(range(4), key=per_trump.__getitem__)
    no_trump = fast_hand_points(hand, NO_TRUMP) + PARTNER_POINTS - 0.5
    return per_trump[best] + PARTNER_POINTS, no_trump, best


def model_bid(est: tuple[float, float, int], legal: Sequence[int], partner_high: bool) -> int:
    suit_est, nt_est, _ = est
    if partner_high:
        suit_est -= 1
        nt_est -= 1
    for bid in legal:
        if bid == PASS:
            continue
        number, kind = divmod(bid, 3)
        if (kind == 0 and number <= suit_est) or (kind == 1 and number <= nt_est - 1):
            return bid
    return PASS if PASS in legal else min(legal)


_all_bids = lru_cache(maxsize=8)(all_bids)


def bids_after(rules: Rules, high: int, seat: int, dealer: int) -> tuple[int, ...]:
    """The legal bids of `seat` when the highest bid so far is `high`."""
    bids = _all_bids(rules)
    if high == PASS:
        return bids if seat == dealer else (PASS, *bids)
    pos = bids.index(high)
    return (PASS, *bids[pos if seat == dealer else pos + 1:])


# --- the player -----------------------------------------------------------------------------------
class MCPlayer(SeededPlayer):
    """Monte Carlo sampling over the unseen cards, greedy-policy rollouts, greedy-model auction."""

    def __init__(self, effort: float = 1.0) -> None:
        super().__init__()
        self.effort = effort  # scales every sample count: below 1, weaker and faster
        self.seed = "0"
        self.rules: Rules | None = None
        self.discarded: dict[tuple[int, int], tuple[int, ...]] = {}

    def start(self, *, seat: int, rules: Rules, games: int, time: TimeControl,
              seed: str) -> None:
        super().start(seat=seat, rules=rules, games=games, time=time, seed=seed)
        self.seed = seed
        self.rules = rules

    def act(self, state: GameState, legal: Sequence[Action]) -> Action:
        obs = state.observation(state.seat)
        return self.decide(obs, state.decision or "", legal, rules=self.rules or state.rules,
                           effort=self.effort)

    def decide(self, obs: dict[str, Any], decision: str, legal: Sequence[Action], *,
               rules: Rules, effort: float = 1.0) -> Action:
        """The decision from what the seat may know: its observation and the legal actions.

        `effort` scales the number of sampled deals (less when time runs short)."""
        phase = DECISIONS.index(decision)
        if len(legal) == 1:
            return legal[0]
        if phase == MISDEAL:
            return True  # only a hand without an honour, 5H or 3S may be thrown in
        key = (int(obs["game"]), int(obs["deal"]))
        view = view_from_observation(obs, rules, discarded=self.discarded.get(key, ()))
        rng = random.Random(f"mc/{self.seed}/{key}/{phase}/{len(view.tricks)}/{len(view.trick)}")
        if phase == PLAY:
            return play_decision(view, legal, rng, effort)  # type: ignore[arg-type]
        if phase == BID:
            return bid_decision(view, legal, rng, effort)  # type: ignore[arg-type]
        if phase == TRUMP:
            return trump_decision(view, rng, effort)
        if phase == DISCARD:
            choice = discard_decision(view, legal, rng, effort)  # type: ignore[arg-type]
            self.discarded[key] = choice
            return choice
        return legal[0]


# --- sampling weighed by the bidding -------------------------------------------------------------
def consistent_deals(view: View, rng: random.Random, count: int) -> list[list[int]]:
    """`count` sampled deals, preferring those where the model bids as the others did."""
    kept: list[list[int]] = []
    spare: list[list[int]] = []
    for _ in range(count * SAMPLE_TRIES):
        deal = sample_deal(view, rng)
        if _bidding_fits(view, deal):
            kept.append(deal)
            if len(kept) == count:
                return kept
        elif len(spare) < count:
            spare.append(deal)
    return kept + spare[: count - len(kept)]


def _bidding_fits(view: View, deal: list[int]) -> bool:
    """Whether the model, holding the sampled hands as dealt, would have bid as the table did."""
    start = _dealt_hands(view, deal)
    high = PASS
    high_seat = -1
    for seat, bid in view.bids:
        if seat != view.seat:
            legal = bids_after(view.rules, high, seat, view.dealer)
            est = model_estimates(start[seat])
            partner_high = high_seat == (seat + 2) & 3 and seat != view.dealer
            wanted = model_bid(est, legal, partner_high)
            # A pass must be a pass; a bid need only be one the model would have made or beaten.
            if (bid == PASS) != (wanted == PASS) or (bid != PASS and wanted < bid - 3):
                return False
        if bid != PASS:
            high, high_seat = bid, seat
    return True


def _dealt_hands(view: View, deal: list[int]) -> list[int]:
    """Each seat's hand before this deal's play: the sampled rest plus the cards it played."""
    hands = deal[:4]
    for leader, cards, _ in view.tricks:
        for i, c in enumerate(cards):
            hands[(leader + i) & 3] |= 1 << c
    for i, c in enumerate(view.trick):
        hands[(view.leader + i) & 3] |= 1 << c
    return hands


# --- decisions -----------------------------------------------------------------------------------
def _deck_mask(rules: Rules) -> int:
    return cards_mask(deck(rules))


def _scaled(count: int, effort: float) -> int:
    return max(4, int(count * effort))


def play_decision(view: View, legal: Sequence[int], rng: random.Random,
                  effort: float = 1.0) -> int:
    assert view.contract is not None
    cseat, bid, trump = view.contract
    table = contract_table(trump, bid % 3 == 2, cseat & 1, _deck_mask(view.rules))
    stakes = Stakes(view.rules, view.score, view.seat & 1)
    low, high = PLAY_SAMPLES
    samples = _scaled(max(low, min(high, PLAY_ROLLOUTS // len(legal))), effort)
    base = view.team_points()
    leader = view.leader if view.trick else view.seat
    totals = [0.0] * len(legal)
    for deal in consistent_deals(view, rng, samples):
        for i, card in enumerate(legal):
            points = base[:]
            play_out(deal[:4], view.trick[:], leader, view.played, points, table, card)
            totals[i] += stakes.value(cseat, bid, points[cseat & 1])
    return legal[max(range(len(legal)), key=totals.__getitem__)]


def _sim_discard(hand: int, kitty: int, count: int, t: Table) -> int:
    """The contractor takes the kitty and throws its `count` cheapest cards (never 5H or 3S)."""
    hand |= kitty
    cards = sorted(mask_cards(hand & ~PROTECTED), key=t.lead_keys.__getitem__)
    for c in cards[:count]:
        hand &= ~(1 << c)
    return hand


def contract_points(deal: list[int], cseat: int, bid: int, trump: int, rules: Rules) -> int:
    """The contracting team's points when the sampled deal is played out from the first lead."""
    t = contract_table(trump, bid % 3 == 2, cseat & 1, _deck_mask(rules))
    hands = deal[:4]
    if rules.kitty:
        hands[cseat] = _sim_discard(hands[cseat], deal[EXTRA], rules.kitty, t)
    points = [0, 0]
    play_out(hands, [], cseat, 0, points, t)
    return points[cseat & 1]


def _kinds(rules: Rules) -> list[int]:
    return [0] + ([1] if rules.no_trump else []) + ([2] if rules.low_no_trump else [])


def bid_decision(view: View, legal: Sequence[int], rng: random.Random,
                 effort: float = 1.0) -> int:
    rules = view.rules
    me = view.seat
    stakes = Stakes(rules, view.score, me & 1)
    deals = consistent_deals(view, rng, _scaled(BID_SAMPLES, effort))
    # My own contract's points with each trump (suits 0..3, then NT and low NT as 4 and 5).
    mine = [[contract_points(d, me, 3 * rules.min_bid + (k >= 4) + (k == 5),
                             NO_TRUMP if k >= 4 else k, rules)
             for k in (0, 1, 2, 3, *[3 + kind for kind in _kinds(rules)[1:]])] for d in deals]
    suit = max(range(4), key=lambda k: sum(row[k] for row in mine))
    totals = {b: 0.0 for b in legal}
    for d, row in zip(deals, mine, strict=True):
        auction = _Auction(view, d)
        for b in legal:
            cseat, final = auction.finish(b)
            if cseat == me:
                kind = final % 3
                pts = row[suit] if kind == 0 else row[3 + kind]
            else:
                pts = auction.points(cseat, final)
            totals[b] += stakes.value(cseat, final, pts)
    return max(legal, key=lambda b: (totals[b], -b))


class _Auction:
    """The rest of the auction on one sampled deal, with the others bidding as the model."""

    def __init__(self, view: View, deal: list[int]) -> None:
        self.view = view
        self.deal = deal
        self.est: dict[int, tuple[float, float, int]] = {}
        self.outcomes: dict[tuple[int, int], int] = {}
        self.high, self.high_seat = PASS, -1
        for seat, bid in view.bids:
            if bid != PASS:
                self.high, self.high_seat = bid, seat

    def finish(self, my_bid: int) -> tuple[int, int]:
        """(contract seat, contract bid) if this seat bids `my_bid` now."""
        view = self.view
        high, high_seat = self.high, self.high_seat
        if my_bid != PASS:
            high, high_seat = my_bid, view.seat
        seat = view.seat
        while seat != view.dealer:
            seat = (seat + 1) & 3
            if seat not in self.est:
                self.est[seat] = model_estimates(self.deal[seat])
            legal = bids_after(view.rules, high, seat, view.dealer)
            partner_high = high_seat == (seat + 2) & 3 and seat != view.dealer
            bid = model_bid(self.est[seat], legal, partner_high)
            if bid != PASS:
                high, high_seat = bid, seat
        return high_seat, high

    def points(self, cseat: int, bid: int) -> int:
        kind = bid % 3
        key = (cseat, kind)
        if key not in self.outcomes:
            if cseat not in self.est:
                self.est[cseat] = model_estimates(self.deal[cseat])
            trump = self.est[cseat][2] if kind == 0 else NO_TRUMP
            self.outcomes[key] = contract_points(self.deal, cseat, bid, trump, self.view.rules)
        return self.outcomes[key]


def trump_decision(view: View, rng: random.Random, effort: float = 1.0) -> int:
    assert view.contract is not None
    _, bid, _ = view.contract
    stakes = Stakes(view.rules, view.score, view.seat & 1)
    totals = [0.0] * 4
    for d in consistent_deals(view, rng, _scaled(TRUMP_SAMPLES, effort)):
        for t in range(4):
            totals[t] += stakes.value(view.seat, bid, contract_points(d, view.seat, bid, t,
                                                                     view.rules))
    return max(range(4), key=totals.__getitem__)


def discard_decision(view: View, legal: Sequence[tuple[int, ...]], rng: random.Random,
                     effort: float = 1.0) -> tuple[int, ...]:
    assert view.contract is not None
    cseat, bid, trump = view.contract
    hand = view.hand

    def kept_strength(combo: tuple[int, ...]) -> float:
        return hand_points(hand & ~cards_mask(combo), trump)

    candidates = sorted(legal, key=kept_strength, reverse=True)[:DISCARD_CANDIDATES]
    table = contract_table(trump, bid % 3 == 2, cseat & 1, _deck_mask(view.rules))
    stakes = Stakes(view.rules, view.score, view.seat & 1)
    totals = [0.0] * len(candidates)
    for d in consistent_deals(view, rng, _scaled(DISCARD_SAMPLES, effort)):
        for i, combo in enumerate(candidates):
            hands = d[:4]
            hands[cseat] = hand & ~cards_mask(combo)
            points = [0, 0]
            play_out(hands, [], cseat, 0, points, table)
            totals[i] += stakes.value(cseat, bid, points[cseat & 1])
    return candidates[max(range(len(candidates)), key=totals.__getitem__)]
