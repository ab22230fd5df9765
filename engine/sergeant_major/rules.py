"""Sergeant Major's rule sets (presets): docs/rules-sergeant-major.md describes each field."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engine.rules_dict import rules_values
from engine.sergeant_major import SERGEANT_MAJOR

GAME = SERGEANT_MAJOR


@dataclass(frozen=True, slots=True)
class SMRules:
    preset: str = "952"
    # Tricks each seat must take, by seat from the dealer: the dealer, the dealer's left, the
    # dealer's right. They add up to the 16 tricks of a hand.
    targets: tuple[int, int, int] = (9, 5, 2)
    kitty: int = 4
    # False: the dealer names trump, discards 4 and then takes the kitty unseen (the source
    # document). True: the dealer takes the kitty first and discards any 4 of the 20.
    kitty_first: bool = False
    # A player who takes this many tricks in one hand wins the game (None: no such win).
    win_tricks: int | None = 12
    # A game of exactly this many hands, won on the total of ups and downs (None: no limit
    # but max_hands).
    hands: int | None = None
    # The longest game, whatever else (then the total of ups and downs decides).
    max_hands: int = 60

    @property
    def game(self) -> str:
        return GAME

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["targets"] = list(self.targets)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> SMRules:
        """Rules from a replay or hello `rules` object; unknown or missing keys are errors."""
        values = rules_values(cls, data)
        targets = values["targets"]
        if not isinstance(targets, list) or len(targets) != 3:
            raise ValueError("targets must be a list of three numbers")
        values["targets"] = tuple(targets)
        rules = cls(**values)
        rules.check()
        return rules

    def check(self) -> None:
        if not isinstance(self.preset, str):
            raise ValueError("preset must be a string")
        if any(type(t) is not int or t < 0 for t in self.targets) or sum(self.targets) != 16:
            raise ValueError(f"targets must be three whole numbers adding up to 16, not "
                             f"{list(self.targets)}")
        if self.kitty != 4:
            raise ValueError("the kitty holds 4 cards")
        if type(self.kitty_first) is not bool:
            raise ValueError("kitty_first must be true or false")
        if self.win_tricks is not None and (type(self.win_tricks) is not int
                                            or not 1 <= self.win_tricks <= 16):
            raise ValueError("win_tricks must be null or 1 to 16")
        if self.hands is not None and (type(self.hands) is not int or self.hands < 1):
            raise ValueError("hands must be null or at least 1")
        if type(self.max_hands) is not int or self.max_hands < 1:
            raise ValueError("max_hands must be at least 1")
        if self.win_tricks is None and self.hands is None:
            raise ValueError("a game needs win_tricks or hands to end")


PRESETS: dict[str, SMRules] = {
    "952": SMRules(),
    "853": SMRules(preset="853", targets=(8, 5, 3)),
    "952-kitty-first": SMRules(preset="952-kitty-first", kitty_first=True),
    # Rated matches of a known length: six hands (each seat deals twice), totals decide.
    "952-six-hands": SMRules(preset="952-six-hands", win_tricks=None, hands=6, max_hands=6),
}
DEFAULT_RULES = PRESETS["952"]
# Each preset as people name it (pages and forms; the name stays the protocol's and the API's).
PRESET_TITLES = {
    "952": "9–5–2, first to win (the usual)",
    "853": "8–5–3, first to win",
    "952-kitty-first": "9–5–2, the kitty taken before trump is named",
    "952-six-hands": "9–5–2 over six hands, totals decide",
}


def get_rules(name: str) -> SMRules:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown Sergeant Major preset {name!r}; choose one of "
                         f"{', '.join(PRESETS)}") from None
