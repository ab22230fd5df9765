"""The built-in players of Sergeant Major: `random` is engine.builtin.RandomPlayer (uniform
over the legal actions of any game); `greedy` is a plain heuristic player, below.

`greedy` takes as many tricks as it can, without search: it names the trump it holds most of
(high cards counted), discards to make short suits shorter, gives away its lowest cards, cashes
the cards that no unplayed card can beat, and otherwise wins a trick as cheaply as it can or
throws its least useful card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.seeded import SeededPlayer
from engine.sergeant_major.cards import SUIT_BITS, rank_of, suit_cards, suit_of
from engine.sergeant_major.game import DISCARD, GIVE, PLAY, TRUMP, SMState

if TYPE_CHECKING:
    from engine.sergeant_major.game import Action

HONOUR_POINTS = {12: 4, 11: 3, 10: 2, 9: 1}  # A K Q J


def trump_strength(hand: int, suit: int) -> float:
    cards = suit_cards(hand, suit)
    return 3 * len(cards) + sum(HONOUR_POINTS.get(rank_of(c), 0) for c in cards)


def best_trump(hand: int) -> int:
    return max(range(4), key=lambda s: trump_strength(hand, s))


class SMGreedyPlayer(SeededPlayer):
    instant = True

    def act(self, state: SMState, legal: Sequence[Action]) -> Action:
        phase = state.phase
        if phase == PLAY:
            return self._play(state, legal)  # type: ignore[arg-type]
        hand = state.hands[state.seat]
        if phase == TRUMP:
            return best_trump(hand)
        if phase == DISCARD:
            return self._shed(hand, state.rules.kitty, trump=state.trump)
        if phase == GIVE:
            return self._shed(hand, int(state.exchanges[-1][2]), trump=-1)
        return legal[0]  # return: forced

    @staticmethod
    def _shed(hand: int, count: int, trump: int) -> tuple[int, ...]:
        """The `count` cards worth least: never a trump or an ace if avoidable, low cards of
        short suits first (a void lets trumps win)."""
        lengths = [len(suit_cards(hand, s)) for s in range(4)]
        cards = [c for s in range(4) for c in suit_cards(hand, s)]
        cards.sort(key=lambda c: (suit_of(c) == trump, rank_of(c) == 12,
                                  rank_of(c) >= 10, lengths[suit_of(c)], rank_of(c)))
        return tuple(sorted(cards[:count]))

    # --- play -------------------------------------------------------------------------------
    def _play(self, state: SMState, legal: Sequence[int]) -> int:
        seat, trick, trump = state.seat, state.trick, state.trump
        hand = state.hands[seat]
        gone = hand | _played(state)  # cards no opponent can hold
        if seat == state.dealer:
            for c in state.discards:
                gone |= 1 << c
        if not trick:
            return self._lead(hand, gone, trump, legal)
        keys = state.keys[state.led]
        best = max(keys[c] for c in trick)
        winners = sorted((c for c in legal if keys[c] > best), key=lambda c: keys[c])
        if not winners:
            return self._throw(hand, legal, trump)
        if len(trick) == 2:  # last to play: the cheapest card that wins
            return winners[0]
        # Second: a card the third player cannot beat in the suit led, if any, else duck.
        sure = [c for c in winners if suit_of(c) != state.led or _boss(c, gone)]
        if sure:
            return sure[0]
        return self._throw(hand, legal, trump)

    @staticmethod
    def _lead(hand: int, gone: int, trump: int, legal: Sequence[int]) -> int:
        trumps = suit_cards(hand, trump)
        if trumps and _boss(trumps[0], gone) and len(trumps) >= 3:
            return trumps[0]  # draw trumps while holding the top one
        bosses = [c for c in legal if suit_of(c) != trump and _boss(c, gone)]
        if bosses:
            return max(bosses, key=rank_of)
        side = [c for c in legal if suit_of(c) != trump] or list(legal)
        lengths = [len(suit_cards(hand, s)) for s in range(4)]
        return min(side, key=lambda c: (lengths[suit_of(c)], rank_of(c)))

    @staticmethod
    def _throw(hand: int, legal: Sequence[int], trump: int) -> int:
        lengths = [len(suit_cards(hand, s)) for s in range(4)]
        return min(legal, key=lambda c: (suit_of(c) == trump, rank_of(c), lengths[suit_of(c)]))


def _played(state: SMState) -> int:
    mask = 0
    for _, cards, _ in state.tricks:
        for c in cards:
            mask |= 1 << c
    for c in state.trick:
        mask |= 1 << c
    return mask


def _boss(card: int, gone: int) -> bool:
    """No card of the suit above this one can be in another hand."""
    suit, rank = suit_of(card), rank_of(card)
    above = ((1 << SUIT_BITS) - 1) & ~((1 << (rank + 1)) - 1)
    return not (above << (SUIT_BITS * suit)) & ~gone
