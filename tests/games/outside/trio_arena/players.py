"""Trio's built-in players."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.builtin import RandomPlayer
from engine.seeded import SeededPlayer


class TrioGreedyPlayer(SeededPlayer):
    """Picks the highest number, unless an earlier seat of this round took it."""

    instant = True

    def act(self, state: Any, legal: Sequence[Any]) -> Any:
        taken = set(state.current)
        free = [n for n in legal if n not in taken]
        return max(free or legal)


def builtin_players() -> dict[str, tuple[type, str]]:
    return {"random": (RandomPlayer, "1"), "greedy": (TrioGreedyPlayer, "1")}
