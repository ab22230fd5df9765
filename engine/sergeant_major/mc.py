"""`builtin:mc` for Sergeant Major: Monte Carlo card play (perfect-information sampling).

For each card to play it deals the cards it cannot see at random, consistently with what its
seat knows (its hand, the cards played, the suits a player has shown out of, the cards of its
own exchanges, its own discards when it dealt), plays each legal card out to the end of the
hand with a cheap policy for all three seats, and plays the card with the best average: its
own tricks, with a bonus for reaching the game-winning count and a malus for letting another
seat reach it. The exchange, trump and discard are greedy's.

It reads only its own seat's view; each decision is seeded from the match seed and the
position, so play is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.sergeant_major.cards import CHUNK_CARDS, FULL, SUIT_MASKS, TRICK_KEYS, suit_of
from engine.sergeant_major.game import PLAY, SMState
from engine.sergeant_major.players import SMGreedyPlayer

if TYPE_CHECKING:
    from engine.players import TimeControl
    from engine.sergeant_major.game import Action

SAMPLES = 24  # sampled deals per card decision; every legal card is played out in each
WIN_BONUS = 6.0


def _cards(mask: int) -> list[int]:
    c0, c1, c2, c3 = CHUNK_CARDS
    return [*c0[mask & 8191], *c1[mask >> 13 & 8191], *c2[mask >> 26 & 8191],
            *c3[mask >> 39 & 8191]]


class SMMCPlayer(SMGreedyPlayer):
    samples = SAMPLES
    instant = False  # it searches

    def act(self, state: SMState, legal: Sequence[Action]) -> Action:
        if state.phase != PLAY or len(legal) == 1:
            return super().act(state, legal)
        rng = random.Random(f"{self.seed}/{state.game}/{len(state.log)}/{len(state.tricks)}/"
                            f"{len(state.trick)}")
        cards = [int(c) for c in legal]  # type: ignore[arg-type]  # play: cards
        totals = [0.0] * len(cards)
        for _ in range(self.samples):
            hands = _sample(state, rng)
            for i, card in enumerate(cards):
                totals[i] += _value(state, hands, card)
        return cards[max(range(len(cards)), key=totals.__getitem__)]

    seed = "0"

    def start(self, *, seat: int, rules: Any, games: int, time: TimeControl,
              seed: str) -> None:
        super().start(seat=seat, rules=rules, games=games, time=time, seed=seed)
        self.seed = seed


def _knowledge(state: SMState) -> tuple[int, list[int], list[int], int]:
    """(unseen cards, cards known in each seat's hand, suits each seat is void in as bits,
    how many unseen cards lie out of play: the dealer's discards, to anyone but the dealer)."""
    me = state.seat
    played = 0
    voids = [0, 0, 0]
    for leader, cards, _ in state.tricks:
        led = suit_of(cards[0])
        for i, card in enumerate(cards):
            played |= 1 << card
            if suit_of(card) != led:
                voids[(leader + i) % 3] |= 1 << led
    if state.trick:
        led = suit_of(state.trick[0])
        for i, card in enumerate(state.trick):
            played |= 1 << card
            if suit_of(card) != led:
                voids[(state.leader + i) % 3] |= 1 << led
    known = [0, 0, 0]
    for giver, receiver, _, given, returned in state.exchanges:
        if me not in (giver, receiver) or given is None or returned is None:
            continue
        moved = sum(1 << c for c in given) & ~sum(1 << c for c in returned)
        came = sum(1 << c for c in returned) & ~sum(1 << c for c in given)
        if me == giver:
            known[receiver] |= moved
        else:
            known[giver] |= came
    unseen = FULL & ~state.hands[me] & ~played
    out = 0
    if me == state.dealer:
        unseen &= ~sum(1 << c for c in state.discards)
    else:
        out = state.rules.kitty
    for s in range(3):
        known[s] &= unseen
    return unseen, known, voids, out


def _sample(state: SMState, rng: random.Random) -> list[int]:
    """The three hands of one sampled deal (the seat's own as it is)."""
    me = state.seat
    unseen, known, voids, out = _knowledge(state)
    need = [0, 0, 0]
    for s in range(3):
        if s != me:
            need[s] = _held(state, s)
    for _ in range(20):
        hands = [0, 0, 0]
        hands[me] = state.hands[me]
        left = list(need)
        pool = []
        for card in _cards(unseen):
            owner = next((s for s in range(3) if known[s] >> card & 1), None)
            if owner is not None and left[owner] > 0:
                hands[owner] |= 1 << card
                left[owner] -= 1
            else:
                pool.append(card)
        rng.shuffle(pool)
        spare = out
        ok = True
        for card in pool:
            suit = 1 << suit_of(card)
            seats = [s for s in range(3) if left[s] > 0 and not voids[s] & suit]
            if seats:
                s = seats[0] if len(seats) == 1 else rng.choice(seats)
                hands[s] |= 1 << card
                left[s] -= 1
            elif spare > 0:
                spare -= 1
            else:
                ok = False
                break
        if ok and not any(left):
            return hands
    # Rare: no consistent deal drawn; deal the pool ignoring the voids.
    hands = [0, 0, 0]
    hands[me] = state.hands[me]
    pool = _cards(unseen)
    rng.shuffle(pool)
    for s in range(3):
        if s != me:
            for _ in range(need[s]):
                hands[s] |= 1 << pool.pop()
    return hands


def _held(state: SMState, seat: int) -> int:
    """Cards `seat` holds now: 16, less what it has played this hand."""
    played = sum(1 for leader, cards, _ in state.tricks for i in range(3)
                 if (leader + i) % 3 == seat)
    played += sum(1 for i in range(len(state.trick)) if (state.leader + i) % 3 == seat)
    return 16 - played


def _value(state: SMState, hands: list[int], card: int) -> float:
    """Play `card`, then the rest of the hand with the rollout policy: the seat's value."""
    me = state.seat
    keys_by_led = TRICK_KEYS[state.trump]
    hands = list(hands)
    taken = list(state.taken)
    trick = list(state.trick)
    leader = state.leader
    hands[me] &= ~(1 << card)
    trick.append(card)
    seat = (me + 1) % 3
    while True:
        if len(trick) == 3:
            keys = keys_by_led[suit_of(trick[0])]
            w = max(range(3), key=lambda i: keys[trick[i]])
            leader = (leader + w) % 3
            taken[leader] += 1
            trick = []
            seat = leader
            if not hands[leader]:
                break
        trick.append(_policy(hands[seat], trick, keys_by_led))
        hands[seat] &= ~(1 << trick[-1])
        seat = (seat + 1) % 3
    win = state.rules.win_tricks
    value = float(taken[me])
    if win is not None:
        if taken[me] >= win:
            value += WIN_BONUS
        elif max(taken) >= win:
            value -= WIN_BONUS
    return value


def _policy(hand: int, trick: list[int], keys_by_led: tuple[tuple[int, ...], ...]) -> int:
    """Lead the highest card of the longest suit; follow with the cheapest card that beats
    the trick so far, else the cheapest card."""
    if not trick:
        best_suit = max(range(4), key=lambda s: (hand & SUIT_MASKS[s]).bit_count())
        return CHUNK_CARDS[best_suit][hand >> (13 * best_suit) & 8191][0]
    led = suit_of(trick[0])
    keys = keys_by_led[led]
    same = CHUNK_CARDS[led][hand >> (13 * led) & 8191]
    options = same or _cards(hand)
    top = max(keys[c] for c in trick)
    winners = [c for c in options if keys[c] > top]
    if winners:
        return min(winners, key=keys.__getitem__)
    return min(options, key=keys.__getitem__)
