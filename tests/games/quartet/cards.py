"""Quartet's pack of 16 cards as small ints: card = suit * 8 + rank - 1, suits S H = 0 1,
ranks 1 to 8 (weakest first). Names are rank then suit: "1S" .. "8S", "1H" .. "8H". A hand is
a bitmask (bit `card`)."""

from __future__ import annotations

from engine.pack import card_parser

SUITS = "SH"
RANKS = "12345678"
PACK = tuple(range(16))
FULL = (1 << 16) - 1
CARD_NAMES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARD_OF: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}
parse_card = card_parser(CARD_OF)


def suit_of(card: int) -> int:
    return card // 8


def rank_of(card: int) -> int:
    """1 to 8."""
    return card % 8 + 1


def mask_cards(mask: int) -> tuple[int, ...]:
    """The cards of a bitmask, weakest first within a suit, spades before hearts."""
    return tuple(c for c in PACK if mask >> c & 1)


def mask_names(mask: int) -> list[str]:
    return [CARD_NAMES[c] for c in mask_cards(mask)]
