"""`builtin:greedy`: a plain heuristic player (no search), the yardstick above `random`.

Bids from an estimate of the points its hand can take in its best trump, picks that trump,
takes the 5 of hearts when it can, gives the 3 of spades to the opponents, and otherwise wins
tricks as cheaply as it can or throws its least useful card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.kaiser.cards import FIVE_HEARTS, NO_TRUMP, PASS, THREE_SPADES, suit_cards
from engine.kaiser.game import BID, DISCARD, MISDEAL, PLAY, TRUMP
from engine.seeded import SeededPlayer

if TYPE_CHECKING:
    from engine.kaiser.game import Action, GameState

PARTNER_POINTS = 2.0  # what the partner's hand is worth on average, in points


def suit_strength(hand: int, suit: int, trump: int) -> float:
    """Expected tricks from one suit of the hand if `trump` is trump (NO_TRUMP for none)."""
    cards = suit_cards(hand, suit)  # strongest first
    ranks = [c % 10 for c in cards]
    n = len(ranks)
    if suit == trump:
        tricks = 0.0
        for i, rank in enumerate(ranks):
            # A high trump is a winner; lower ones win once the high ones are drawn or by length.
            tricks += 1.0 if rank >= 9 - i else 0.6 if rank >= 7 - i else 0.3
        return tricks + max(0, n - 3) * 0.4
    tricks = 0.0
    if n and ranks[0] == 9:
        tricks += 0.9
    if n >= 2 and 8 in ranks[:2]:
        tricks += 0.5 if trump != NO_TRUMP else 0.7
    if trump == NO_TRUMP and n >= 4 and ranks[0] >= 8:
        tricks += (n - 3) * 0.6
    return tricks


def hand_points(hand: int, trump: int) -> float:
    """Expected points of the team from this hand with `trump`, before the partner's share."""
    tricks = sum(suit_strength(hand, s, trump) for s in range(4))
    if trump != NO_TRUMP:
        short = sum(1 for s in range(4) if s != trump and len(suit_cards(hand, s)) <= 1)
        tricks += 0.4 * short * min(1, len(suit_cards(hand, trump)) // 3)
    points = tricks
    if hand >> FIVE_HEARTS & 1:
        points += 3.0 if trump == 2 or len(suit_cards(hand, 2)) >= 3 else 2.0
    if hand >> THREE_SPADES & 1:
        points -= 1.5
    return points


class GreedyPlayer(SeededPlayer):
    instant = True  # a few microseconds a move

    def act(self, state: GameState, legal: Sequence[Action]) -> Action:
        phase = state.phase
        if phase == PLAY:
            return self._play(state, legal)  # type: ignore[arg-type]
        if phase == BID:
            return self._bid(state, legal)  # type: ignore[arg-type]
        if phase == TRUMP:
            return self._best_trump(state.hands[state.seat])
        if phase == DISCARD:
            return self._discard(state, legal)  # type: ignore[arg-type]
        if phase == MISDEAL:
            return True  # the hand qualifies only when it holds nothing worth playing
        return legal[0]

    # --- bidding -------------------------------------------------------------------------
    @staticmethod
    def _best_trump(hand: int) -> int:
        return max(range(4), key=lambda t: hand_points(hand, t))

    def _bid(self, state: GameState, legal: Sequence[int]) -> int:
        hand = state.hands[state.seat]
        suit_est = hand_points(hand, self._best_trump(hand)) + PARTNER_POINTS
        nt_est = hand_points(hand, NO_TRUMP) + PARTNER_POINTS - 0.5
        partner_high = state.high_seat == (state.seat + 2) % 4
        if partner_high and state.seat != state.dealer:
            suit_est -= 1  # let the partner play it unless clearly stronger
            nt_est -= 1
        wanted = []
        for bid in legal:
            if bid == PASS:
                continue
            number, kind = divmod(bid, 3)
            if (kind == 0 and number <= suit_est) or (kind == 1 and number <= nt_est - 1):
                wanted.append(bid)
        if wanted:
            # The cheapest bid that wins the auction: keeps the score of a failed contract low.
            return min(wanted)
        return PASS if PASS in legal else min(legal)

    # --- the kitty --------------------------------------------------------------------------
    def _discard(self, state: GameState, legal: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
        trump = state.trump
        hand = state.hands[state.seat]

        def cost(combo: tuple[int, ...]) -> float:
            rest = hand
            for c in combo:
                rest &= ~(1 << c)
            return -hand_points(rest, trump)

        return min(legal, key=cost)

    # --- play -----------------------------------------------------------------------------------
    def _play(self, state: GameState, legal: Sequence[int]) -> int:
        trick = state.trick
        if not trick:
            return self._lead(state, legal)
        keys = state.keys[state.led]
        best = max(range(len(trick)), key=lambda i: keys[trick[i]])
        best_key = keys[trick[best]]
        partner_winning = len(trick) - best == 2
        last = len(trick) == 3
        winners = [c for c in legal if keys[c] > best_key]
        losers = [c for c in legal if keys[c] <= best_key]
        has_five = FIVE_HEARTS in trick
        has_three = THREE_SPADES in trick
        if partner_winning and (
                last or (best_key >= keys[trick[best]] and self._is_high(state, trick[best]))):
            if FIVE_HEARTS in legal:
                return FIVE_HEARTS
            return self._lowest(legal, keys, avoid=THREE_SPADES)
        if has_three and not partner_winning and losers:
            return self._dump(losers, keys)
        if winners and (has_five or last or not has_three):
            if last or has_five:
                return min(winners, key=lambda c: (c == FIVE_HEARTS, keys[c]))
            top = max(winners, key=lambda c: keys[c])
            if self._is_high(state, top) or keys[top] >= 20:
                return top if top != FIVE_HEARTS else min(winners, key=lambda c: keys[c])
        if THREE_SPADES in legal and not partner_winning:
            return THREE_SPADES
        return self._dump(losers or list(legal), keys)

    def _lead(self, state: GameState, legal: Sequence[int]) -> int:
        trump = state.trump
        hand = state.hands[state.seat]
        bidders = state.contract_seat % 2 == state.seat % 2
        played = 0
        for _, cards, _ in state.tricks:
            for c in cards:
                played |= 1 << c
        if bidders and trump != NO_TRUMP:
            trumps = suit_cards(hand, trump)
            if trumps and self._boss(trumps[0], played):
                return trumps[0]
        for c in legal:
            if c != FIVE_HEARTS and c != THREE_SPADES and self._boss(c, played):
                return c
        if THREE_SPADES in legal and len(suit_cards(hand, 3)) == 1:
            return THREE_SPADES  # a low spade the partner can duck: the opponents may take it
        keys = state.keys[legal[0] // 10]
        return self._lowest(legal, keys, avoid=FIVE_HEARTS)

    @staticmethod
    def _boss(card: int, played: int) -> bool:
        """No unplayed card of the suit ranks above this one."""
        suit, rank = divmod(card, 10)
        higher = ((1 << 10) - 1) & ~((1 << (rank + 1)) - 1)
        return not (higher << (10 * suit)) & ~played & ~(1 << card) or rank == 9

    def _is_high(self, state: GameState, card: int) -> bool:
        played = 0
        for _, cards, _ in state.tricks:
            for c in cards:
                played |= 1 << c
        for c in state.trick:
            played |= 1 << c
        return self._boss(card, played & ~(1 << card))

    @staticmethod
    def _lowest(cards: Sequence[int], keys: Sequence[int], avoid: int) -> int:
        pool = [c for c in cards if c != avoid] or list(cards)
        return min(pool, key=lambda c: (keys[c] >= 20, c % 10))

    @staticmethod
    def _dump(cards: Sequence[int], keys: Sequence[int]) -> int:
        """Throw the card worth least to us: never the 5H to a trick we lose if avoidable."""
        pool = [c for c in cards if c != FIVE_HEARTS] or list(cards)
        if THREE_SPADES in pool:
            return THREE_SPADES
        return min(pool, key=lambda c: (keys[c] >= 20, c % 10))
