"""The base of the built-in players (engine.builtin, and each game's greedy and mc):
trusted, in-process, with a random generator seeded by the match's seed."""

from __future__ import annotations

import random
from typing import Any

from engine.players import Player, TimeControl


class SeededPlayer(Player):
    """A trusted in-process player with its own seeded random generator."""

    trusted = True
    makes_cycles = False

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.random = self.rng.random

    def start(self, *, seat: int, rules: Any, games: int, time: TimeControl,
              seed: str) -> None:
        self.rng = random.Random(f"{type(self).__name__}/{seed}")
