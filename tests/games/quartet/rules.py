"""Quartet's rule sets (presets): how many deals a game has."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engine.rules_dict import rules_values
from tests.games.quartet import QUARTET

GAME = QUARTET
MAX_DEALS = 12


@dataclass(frozen=True, slots=True)
class QuartetRules:
    preset: str = "standard"
    deals: int = 3  # the deals of a game (4 tricks each)

    @property
    def game(self) -> str:
        return GAME

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> QuartetRules:
        """Rules from a replay or hello `rules` object; unknown or missing keys are errors."""
        rules = cls(**rules_values(cls, data))
        rules.check()
        return rules

    def check(self) -> None:
        if not isinstance(self.preset, str):
            raise ValueError("preset must be a string")
        if type(self.deals) is not int or not 1 <= self.deals <= MAX_DEALS:
            raise ValueError(f"deals must be a whole number from 1 to {MAX_DEALS}")


PRESETS: dict[str, QuartetRules] = {
    "standard": QuartetRules(),
    "short": QuartetRules(preset="short", deals=1),  # an uploaded bot's check
}
DEFAULT_RULES = PRESETS["standard"]


def get_rules(name: str) -> QuartetRules:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown Quartet preset {name!r}; choose one of "
                         f"{', '.join(PRESETS)}") from None
