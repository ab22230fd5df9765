"""Rule sets (presets): the parameters docs/rules.md describes, one Rules object per preset."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from engine.rules_dict import rules_values


@dataclass(frozen=True, slots=True)
class Rules:
    preset: str = "official"
    deck: int = 32
    min_bid: int = 7
    max_bid: int = 12
    no_trump: bool = True
    low_no_trump: bool = False
    kitty: int = 0
    lockout: int = 47
    target: int = 52
    lose_at: int | None = -52
    target_after_no_trump: int | None = None
    misdeal: bool = False
    max_deals: int = 100

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules from a replay or protocol `rules` object; unknown or missing keys are errors."""
        rules = cls(**rules_values(cls, data, unknown_allowed=True))
        rules.check()
        return rules

    def check(self) -> None:
        if self.deck not in (32, 34):
            raise ValueError(f"deck must be 32 or 34, not {self.deck!r}")
        if self.kitty != self.deck - 32:
            raise ValueError(f"a {self.deck}-card deck needs a kitty of {self.deck - 32}")
        if not (1 <= self.min_bid <= self.max_bid <= 12):
            raise ValueError(f"bids must satisfy 1 <= min_bid <= max_bid <= 12 (got "
                             f"{self.min_bid}..{self.max_bid})")
        if self.low_no_trump and not self.no_trump:
            raise ValueError("low_no_trump needs no_trump")
        if self.max_deals < 1:
            raise ValueError("max_deals must be at least 1")


PRESETS: dict[str, Rules] = {
    "official": Rules(),
    "pagat": Rules(preset="pagat", min_bid=6, lockout=45, lose_at=None, misdeal=True),
    "bga": Rules(preset="bga", min_bid=6, lockout=45, lose_at=None),
    "saskatchewan": Rules(
        preset="saskatchewan", deck=34, kitty=2, lockout=45, lose_at=None,
        low_no_trump=True, target_after_no_trump=62,
    ),
}
DEFAULT_RULES = PRESETS["official"]
# Each preset as people name it (pages and forms; the name stays the protocol's and the API's).
PRESET_TITLES = {
    "official": "Official rules (minimum bid 7, lose at −52)",
    "pagat": "Pagat's rules (minimum bid 6, misdeals allowed)",
    "bga": "Board Game Arena's rules (minimum bid 6)",
    "saskatchewan": "Saskatchewan (34 cards, a kitty of 2, low no trump)",
}


def get_rules(name: str) -> Rules:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)}"
        ) from None


__all__ = ["Rules", "PRESETS", "DEFAULT_RULES", "get_rules", "replace"]
