"""Kaiser's words for people: its seats, bids and contracts (the generic vocabulary of cards,
numbers and scores is engine.words). The same as the replay viewer's (static/js/replay.js:
bidText, contractText)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.words import SUIT_SYMBOLS

SEATS = ("South", "West", "North", "East")  # as the viewer and the play table name them


def bid_text(bid: str) -> str:
    """A Kaiser bid: 'pass', '7' (the contractor names trump), '7 no trump', '7 no trump, low'
    (the protocol's 'pass', '7', '7N', '7L')."""
    if bid.endswith("N"):
        return f"{bid[:-1]} no trump"
    if bid.endswith("L"):
        return f"{bid[:-1]} no trump, low"
    return bid


def contract_text(contract: Mapping[str, Any], who: str) -> str:
    """'7 no trump by greedy (South)', '7 ♥ by greedy (South)' once the suit is named: the
    bid in words, the trump's symbol, and `who` made it (a player, a seat, or both)."""
    words = bid_text(str(contract["bid"]))
    if contract.get("trump"):
        words += f" {SUIT_SYMBOLS.get(contract['trump'], contract['trump'])}"
    return f"{words} by {who}"
