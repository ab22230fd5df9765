"""Trio's rules: how many rounds a game has."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engine.rules_dict import rules_values


@dataclass(frozen=True)
class TrioRules:
    preset: str = "standard"
    rounds: int = 5
    top: int = 5  # picks are 1..top

    @property
    def game(self) -> str:
        return "trio"

    @classmethod
    def from_dict(cls, data: Any) -> TrioRules:
        values = rules_values(cls, data)
        rules = cls(**values)
        if not (isinstance(rules.rounds, int) and 1 <= rules.rounds <= 50):
            raise ValueError("rounds must be 1..50")
        if not (isinstance(rules.top, int) and 2 <= rules.top <= 9):
            raise ValueError("top must be 2..9")
        return rules

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PRESETS = {"standard": TrioRules(), "short": TrioRules(preset="short", rounds=2)}


def get_rules(name: str) -> TrioRules:
    if name not in PRESETS:
        raise ValueError(f"unknown Trio preset {name!r}")
    return PRESETS[name]
