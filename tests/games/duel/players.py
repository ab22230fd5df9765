"""Duel's built-in `greedy` player: the highest legal card that wins the trick (on lead, its
highest card), else its lowest. Deterministic."""

from __future__ import annotations

from collections.abc import Sequence

from engine.seeded import SeededPlayer
from tests.games.duel.cards import rank_of, suit_of
from tests.games.duel.game import DuelState


def greedy_card(trick: Sequence[int], legal: Sequence[int]) -> int:
    if not trick:
        return max(legal, key=rank_of)
    led = trick[0]
    winners = [c for c in legal if suit_of(c) == suit_of(led) and c > led]
    if winners:
        return max(winners)
    return min(legal, key=rank_of)


class DuelGreedyPlayer(SeededPlayer):
    instant = True

    def act(self, state: DuelState, legal: Sequence[int]) -> int:
        return greedy_card(state.trick, legal)
