"""Players of known relative strength, for measuring how well a ladder ranks: builtin:greedy that
plays a uniformly random legal action instead with probability `noise` (0: greedy, 1: random)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.kaiser.greedy import GreedyPlayer

if TYPE_CHECKING:
    from engine.kaiser.game import Action, GameState


class NoisyGreedyPlayer(GreedyPlayer):
    def __init__(self, noise: float = 0.0) -> None:
        super().__init__()
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be between 0 and 1, not {noise}")
        self.noise = noise

    def act(self, state: GameState, legal: Sequence[Action]) -> Action:
        if self.rng.random() < self.noise:
            return legal[self.rng.randrange(len(legal))]
        return super().act(state, legal)
