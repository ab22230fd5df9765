"""One game of Trio: each round every seat in turn picks 1..top; a number picked by two or
more seats in a round scores nothing, a unique one scores itself times the round's weight
(dealt from the seed). Highest total wins; a tie for the top is a draw."""

from __future__ import annotations

import random
from typing import Any


class TrioState:
    def __init__(self, rules: Any, *, seed: str, game: int) -> None:
        self.rules = rules
        # The same weights for every game of a set: they come from the match's seed alone.
        rng = random.Random(f"trio/{seed}")
        self.weights = [rng.randint(1, 3) for _ in range(rules.rounds)]
        self.picks: list[list[int]] = []
        self.current: list[int] = []
        self.totals = [0, 0, 0]
        self.winner: int | None = None
        self._over = False

    @property
    def seat(self) -> int:
        return len(self.current)

    @property
    def decision(self) -> str | None:
        return None if self._over else "pick"

    @property
    def deal_index(self) -> int:
        return len(self.picks)

    def legal_actions(self) -> list[int]:
        return [] if self._over else list(range(1, self.rules.top + 1))

    def apply(self, action: int) -> None:
        self.current.append(action)
        if len(self.current) < 3:
            return
        weight = self.weights[len(self.picks)]
        for seat, pick in enumerate(self.current):
            if self.current.count(pick) == 1:
                self.totals[seat] += pick * weight
        self.picks.append(self.current)
        self.current = []
        if len(self.picks) == self.rules.rounds:
            self._over = True
            best = max(self.totals)
            top = [s for s, t in enumerate(self.totals) if t == best]
            self.winner = top[0] if len(top) == 1 else None

    def is_terminal(self) -> bool:
        return self._over

    def observation(self, seat: int) -> dict[str, Any]:
        # Picks of the round in play are hidden until the round ends.
        return {"seat": seat, "round": len(self.picks), "weights": self.weights,
                "picks": self.picks, "totals": self.totals}

    def records(self) -> list[dict[str, Any]]:
        return [{"weights": self.weights, "picks": self.picks}]

    def partial_record(self) -> dict[str, Any]:
        return {"weights": self.weights, "picks": self.picks, "current": self.current}
