"""What one seat knows about a deal, and random deals of the unseen cards consistent with it.

Built only from `GameState.observation(seat)` (the protocol's `state` object) plus what the seat
remembers itself (its own discards, which the observation does not repeat), so a player that
samples from a `View` cannot see another seat's hand.

Known facts used: the seat's own hand, every card played, how many cards each seat still holds,
voids (a seat that did not follow the suit led holds none of it), and that discards are never
5H or 3S. Bidding is not used here: the players weigh samples by it if they want to.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.kaiser.cards import (
    CARD_OF,
    FIVE_HEARTS,
    NO_TRUMP,
    SUITS,
    THREE_SPADES,
    cards_mask,
    deck,
    parse_bid,
)
from engine.kaiser.game import PROTECTED
from engine.kaiser.rules import Rules

HAND_SIZE = 8
EXTRA = 4  # the pseudo-seat of cards no one holds: the kitty, or the contractor's discards


@dataclass(slots=True)
class View:
    """One seat's knowledge of the deal in progress."""

    seat: int
    rules: Rules
    dealer: int
    score: tuple[int, int]
    hand: int
    played: int  # every card played this deal (finished tricks and the current trick)
    counts: list[int]  # cards each seat still holds
    voids: list[int]  # per seat, a bitmask of suits (bit s) it is known to lack
    bids: list[tuple[int, int]]
    contract: tuple[int, int, int] | None  # (seat, bid, trump) with NO_TRUMP for none
    tricks: list[tuple[int, tuple[int, ...], int]]
    trick: list[int] = field(default_factory=list)
    leader: int = -1
    unseen: int = 0  # cards that may be in another seat's hand or out of play
    extra_count: int = 0  # how many of the unseen cards are out of play (kitty or discards)
    extra_free: int = 0  # the cards that may be among them

    def team_points(self) -> list[int]:
        """Points each team has taken in the finished tricks of this deal."""
        points = [0, 0]
        for _, cards, winner in self.tricks:
            points[winner & 1] += trick_points(cards)
        return points


def trick_points(cards: Iterable[int]) -> int:
    """1 for the trick, +5 with the 5 of hearts in it, -3 with the 3 of spades."""
    points = 1
    for card in cards:
        if card == FIVE_HEARTS:
            points += 5
        elif card == THREE_SPADES:
            points -= 3
    return points


def _cards(names: Iterable[str]) -> list[int]:
    return [CARD_OF[n] for n in names]


def view_from_observation(
    obs: Mapping[str, Any], rules: Rules, *, discarded: Iterable[int] = ()
) -> View:
    """The seat's View from its observation and the cards it discarded itself (if any)."""
    seat = int(obs["seat"])
    hand = cards_mask(_cards(obs["hand"]))
    contract = None
    if obs.get("contract"):
        c = obs["contract"]
        trump = NO_TRUMP if c["trump"] is None else SUITS.index(c["trump"])
        contract = (int(c["seat"]), parse_bid(c["bid"]), trump)
    bids = [(int(b["seat"]), parse_bid(b["bid"])) for b in obs["bids"]]
    view = View(seat=seat, rules=rules, dealer=int(obs["dealer"]),
                score=(int(obs["score"][0]), int(obs["score"][1])), hand=hand, played=0,
                counts=[HAND_SIZE] * 4, voids=[0] * 4, bids=bids, contract=contract,
                tricks=[])
    for t in obs["tricks"]:
        cards = tuple(_cards(t["cards"]))
        view.tricks.append((int(t["leader"]), cards, int(t["winner"])))
        _note_trick(view, int(t["leader"]), cards)
    if obs.get("trick"):
        view.leader = int(obs["trick"]["leader"])
        view.trick = _cards(obs["trick"]["cards"])
        _note_trick(view, view.leader, view.trick)
    _note_unseen(view, cards_mask(list(discarded)))
    return view


def _note_trick(view: View, leader: int, cards: Iterable[int]) -> None:
    led = -1
    for i, card in enumerate(cards):
        who = (leader + i) & 3
        view.played |= 1 << card
        view.counts[who] -= 1
        if i == 0:
            led = card // 10
        elif card // 10 != led:
            view.voids[who] |= 1 << led


def _note_unseen(view: View, discarded: int) -> None:
    full = cards_mask(deck(view.rules))
    view.counts[view.seat] = bin(view.hand).count("1")
    view.unseen = full & ~view.hand & ~view.played & ~discarded
    held = sum(view.counts[s] for s in range(4) if s != view.seat)
    view.extra_count = bin(view.unseen).count("1") - held
    # Before the contract the kitty may hold anything; afterwards the unknown cards out of play
    # are the contractor's discards, which are never 5H or 3S.
    after_discard = view.contract is not None and view.contract[0] != view.seat
    view.extra_free = view.unseen & ~PROTECTED if after_discard else view.unseen


def sample_deal(view: View, rng: random.Random, *, tries: int = 20) -> list[int]:
    """Four hand masks (the seat's own as known) and, at index 4, the cards out of play.

    Cards with the fewest possible holders are placed first, each to a holder drawn in
    proportion to the room it has left: without constraints that is exactly a random deal, and
    with voids it stays close to uniform over the consistent deals.
    """
    for _ in range(tries):
        deal = _try_sample(view, rng, respect_voids=True)
        if deal is not None:
            return deal
    # Only reachable if the observation contradicts itself; still return a deal of right sizes.
    return _try_sample(view, rng, respect_voids=False) or _fallback(view, rng)


def _holders(view: View, card: int, respect_voids: bool) -> tuple[int, ...]:
    suit_bit = 1 << (card // 10)
    out = [s for s in range(4) if s != view.seat and view.counts[s] > 0
           and not (respect_voids and view.voids[s] & suit_bit)]
    if view.extra_count > 0 and view.extra_free >> card & 1:
        out.append(EXTRA)
    return tuple(out)


def _try_sample(view: View, rng: random.Random, *, respect_voids: bool) -> list[int] | None:
    room = view.counts[:] + [view.extra_count]
    room[view.seat] = 0
    cards = [c for c in range(40) if view.unseen >> c & 1]
    rng.shuffle(cards)
    known: dict[tuple[int, bool], tuple[int, ...]] = {}
    options = []
    for c in cards:
        kind = (c // 10, bool(PROTECTED >> c & 1))
        if kind not in known:
            known[kind] = _holders(view, c, respect_voids)
        options.append((c, known[kind]))
    options.sort(key=lambda item: len(item[1]))
    deal = [0, 0, 0, 0, 0]
    deal[view.seat] = view.hand
    rand = rng.random
    for card, holders in options:
        total = 0
        for h in holders:
            total += room[h]
        if not total:
            return None
        pick = rand() * total
        chosen = EXTRA
        for h in holders:
            if room[h]:
                chosen = h
                pick -= room[h]
                if pick < 0:
                    break
        room[chosen] -= 1
        deal[chosen] |= 1 << card
    return deal


def _fallback(view: View, rng: random.Random) -> list[int]:
    cards = [c for c in range(40) if view.unseen >> c & 1]
    rng.shuffle(cards)
    deal = [0, 0, 0, 0, 0]
    deal[view.seat] = view.hand
    for s in (*[s for s in range(4) if s != view.seat], EXTRA):
        need = view.extra_count if s == EXTRA else view.counts[s]
        for _ in range(max(0, need)):
            if cards:
                deal[s] |= 1 << cards.pop()
    return deal

