"""Cards and bids as small ints, with the tables the hot loop uses.

A card is `suit * 10 + rank`: suits C D H S are 0..3, ranks 3 5 7 8 9 T J Q K A are 0..9
(weakest first). A hand is a bitmask of cards (bit `card`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.pack import SUITS as SUITS
from engine.pack import card_names, card_parser
from engine.pack import cards_mask as cards_mask

if TYPE_CHECKING:
    from engine.kaiser.rules import Rules

RANKS = "3578" "9TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
NO_TRUMP = 4  # the "trump" of a no-trump contract

FIVE_HEARTS = HEARTS * 10 + 1
THREE_SPADES = SPADES * 10 + 0
FIVE_HEARTS_BIT = 1 << FIVE_HEARTS
THREE_SPADES_BIT = 1 << THREE_SPADES

CARD_NAMES: tuple[str, ...] = card_names(RANKS)
CARD_OF: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}
parse_card = card_parser(CARD_OF)
SUIT_MASKS: tuple[int, ...] = tuple(((1 << 10) - 1) << (10 * s) for s in range(4))
HONOUR_RANKS = (6, 7, 8, 9)  # J Q K A: a hand without them (or 5H/3S) may be thrown in


def _chunk_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each suit, every 10-bit pattern of that suit's ranks -> its cards, strongest first."""
    return tuple(
        tuple(
            tuple(s * 10 + r for r in range(9, -1, -1) if pattern >> r & 1)
            for pattern in range(1024)
        )
        for s in range(4)
    )


CHUNK_CARDS = _chunk_tables()
_C0, _C1, _C2, _C3 = CHUNK_CARDS


CHUNK_NAMES = tuple(tuple(tuple(CARD_NAMES[c] for c in cards) for cards in suit)
                    for suit in CHUNK_CARDS)
_N0, _N1, _N2, _N3 = CHUNK_NAMES


def mask_names(mask: int) -> list[str]:
    """The names of the cards of a bitmask, in mask_cards order."""
    return [*_N0[mask & 1023], *_N1[mask >> 10 & 1023], *_N2[mask >> 20 & 1023],
            *_N3[mask >> 30 & 1023]]


def mask_cards(mask: int) -> tuple[int, ...]:
    """The cards of a bitmask, by suit C D H S, strongest first within a suit."""
    return (_C0[mask & 1023] + _C1[mask >> 10 & 1023]
            + _C2[mask >> 20 & 1023] + _C3[mask >> 30 & 1023])


def suit_cards(mask: int, suit: int) -> tuple[int, ...]:
    return CHUNK_CARDS[suit][mask >> (10 * suit) & 1023]


def card_str(card: int) -> str:
    return CARD_NAMES[card]


def deck(rules: Rules) -> list[int]:
    """The pack: 32 cards (7s except 7H/7S, which are 5H/3S) or 34 (every 7, plus 5H and 3S)."""
    cards = [s * 10 + r for s in range(4) for r in range(2, 10)]
    if rules.deck == 32:
        cards.remove(HEARTS * 10 + 2)
        cards.remove(SPADES * 10 + 2)
    return sorted(cards + [FIVE_HEARTS, THREE_SPADES])


def trick_keys(trump: int, led: int, low: bool) -> tuple[int, ...]:
    """Strength of every card in a trick led in `led`: the highest key wins."""
    keys = []
    for card in range(40):
        suit, rank = divmod(card, 10)
        strength = (11 - rank if rank >= 2 else rank) if low else rank
        keys.append(strength + (20 if suit == trump else 10 if suit == led else 0))
    return tuple(keys)


# TRICK_KEYS[low][trump][led]: trump 0..3 or NO_TRUMP.
TRICK_KEYS = tuple(
    tuple(tuple(trick_keys(t, led, low) for led in range(4)) for t in range(5))
    for low in (False, True)
)

# Bids: PASS, or number * 3 + kind where kind 0 is a suit bid, 1 no trump, 2 low no trump.
PASS = -1
BID_KINDS = ("", "N", "L")


def bid_str(bid: int) -> str:
    if bid == PASS:
        return "pass"
    number, kind = divmod(bid, 3)
    return f"{number}{BID_KINDS[kind]}"


# The name of every bid a preset allows (and of PASS), for writing replays.
BID_NAMES: dict[int, str] = {b: bid_str(b) for b in range(PASS, 13 * 3)}


def parse_bid(text: object) -> int:
    if text == "pass":
        return PASS
    if isinstance(text, str) and text[:1].isdigit():
        digits = text.rstrip("NL")
        suffix = text[len(digits):]
        if digits.isdigit() and suffix in BID_KINDS and str(int(digits)) == digits:
            return int(digits) * 3 + BID_KINDS.index(suffix)
    raise ValueError(f"not a bid: {text!r}")


def bid_number(bid: int) -> int:
    return bid // 3


def bid_kind(bid: int) -> int:
    return bid % 3


def suit_index(text: object) -> int:
    if isinstance(text, str) and len(text) == 1 and text in SUITS:
        return SUITS.index(text)
    raise ValueError(f"not a suit: {text!r}")
