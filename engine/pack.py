"""What every game's pack shares: cards named rank then suit ("AS", "TH"), suits C D H S, a
card as a small int and a hand as a bitmask of them (bit `card`). Each game's `cards` module
builds its own pack (its ranks, its numbering) from these."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

SUITS = "CDHS"


def card_names(ranks: str) -> tuple[str, ...]:
    """Every card's name in the order of its number: suit by suit, each suit's ranks as
    listed (weakest first)."""
    return tuple(r + s for s in SUITS for r in ranks)


def card_parser(card_of: Mapping[str, int]) -> Callable[[object], int]:
    """A pack's parse_card: the card a name stands for, else ValueError saying so."""

    def parse_card(text: object) -> int:
        if isinstance(text, str):
            card = card_of.get(text)
            if card is not None:
                return card
        raise ValueError(f"not a card: {text!r}")

    return parse_card


def cards_mask(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask
