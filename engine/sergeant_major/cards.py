"""The 52-card pack as small ints: card = suit * 13 + rank, suits C D H S = 0..3, ranks
2 3 4 5 6 7 8 9 T J Q K A = 0..12 (weakest first). A hand is a bitmask (bit `card`).

Card names are those of Kaiser ("AS", "TH", "2C"): rank letter then suit letter.
"""

from __future__ import annotations

from engine.pack import SUITS as SUITS
from engine.pack import card_names, card_parser
from engine.pack import cards_mask as cards_mask

RANKS = "23456789TJQKA"
SUIT_BITS = 13
SUIT_PATTERN = (1 << SUIT_BITS) - 1
PACK = tuple(range(52))
FULL = (1 << 52) - 1

CARD_NAMES: tuple[str, ...] = card_names(RANKS)
CARD_OF: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}
parse_card = card_parser(CARD_OF)
SUIT_MASKS: tuple[int, ...] = tuple(SUIT_PATTERN << (SUIT_BITS * s) for s in range(4))
BITS: tuple[int, ...] = tuple(1 << c for c in range(52))


def _chunk_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each suit, every 13-bit pattern of its ranks -> its cards, strongest first."""
    order = range(SUIT_BITS - 1, -1, -1)
    return tuple(
        tuple(tuple(s * SUIT_BITS + r for r in order if pattern >> r & 1)
              for pattern in range(1 << SUIT_BITS))
        for s in range(4))


CHUNK_CARDS = _chunk_tables()
_C0, _C1, _C2, _C3 = CHUNK_CARDS


def mask_cards(mask: int) -> tuple[int, ...]:
    """The cards of a bitmask, by suit C D H S, strongest first within a suit."""
    return (_C0[mask & 8191] + _C1[mask >> 13 & 8191] + _C2[mask >> 26 & 8191]
            + _C3[mask >> 39 & 8191])


def suit_cards(mask: int, suit: int) -> tuple[int, ...]:
    """The cards of `suit` in a bitmask, strongest first."""
    return CHUNK_CARDS[suit][mask >> (SUIT_BITS * suit) & SUIT_PATTERN]


def mask_names(mask: int) -> list[str]:
    return [CARD_NAMES[c] for c in mask_cards(mask)]


def suit_of(card: int) -> int:
    return card // SUIT_BITS


def rank_of(card: int) -> int:
    return card % SUIT_BITS


def _trick_keys(trump: int, led: int) -> tuple[int, ...]:
    """Strength of every card in a trick led in `led` with `trump`: the highest key wins."""
    return tuple(rank_of(c) + (40 if suit_of(c) == trump else 20 if suit_of(c) == led else 0)
                 for c in range(52))


# TRICK_KEYS[trump][led]
TRICK_KEYS = tuple(tuple(_trick_keys(t, led) for led in range(4)) for t in range(4))
