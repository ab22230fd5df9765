"""Quartet's built-in `greedy` player: the highest legal card that wins the trick (on lead, its
highest card), else its lowest. Deterministic."""

from __future__ import annotations

from collections.abc import Sequence

from engine.seeded import SeededPlayer
from tests.games.quartet.cards import rank_of, suit_of
from tests.games.quartet.game import QuartetState


def greedy_card(trick: Sequence[int], legal: Sequence[int]) -> int:
    if not trick:
        return max(legal, key=rank_of)
    best = max(c for c in trick if suit_of(c) == suit_of(trick[0]))
    winners = [c for c in legal if suit_of(c) == suit_of(best) and c > best]
    if winners:
        return max(winners)
    return min(legal, key=rank_of)


class QuartetGreedyPlayer(SeededPlayer):
    instant = True

    def act(self, state: QuartetState, legal: Sequence[int]) -> int:
        return greedy_card(state.trick, legal)
