"""The bot protocol's transport, whatever the game: its version, and a bot's reply line read
as JSON (the hot path: a seat's every decision). Each game writes its own messages (its
plugin's hello and act_writer) and reads the actions of its replies (action_from_reply),
with the readers of a card and a suit below, which every game's protocol shares."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from engine.pack import SUITS

PROTOCOL_VERSION = 1

_decode = json.JSONDecoder().decode  # what json.loads uses for a str, with default arguments


def parse_line(line: bytes) -> Any:
    """json.loads(line), exactly (the same value, or the same error), without its encoding
    detection for the usual line: one that opens with "{" and no NUL (UTF-8 to json.loads)."""
    if line[:1] == b"{" and line[1:2] != b"\x00":
        return _decode(line.decode("utf-8", "surrogatepass"))
    return json.loads(line)


def card_from_wire(state: Any, value: Any, parse_card: Callable[[object], int]) -> int:
    """The card a reply plays, if it may be played now; else ValueError saying why."""
    card = parse_card(value)
    if card not in state.legal_actions():
        raise ValueError(f"{value} may not be played now")
    return card


def suit_from_wire(value: Any) -> int:
    """The suit a reply names ("C", "D", "H" or "S") as its number; else ValueError."""
    if not (isinstance(value, str) and len(value) == 1 and value in SUITS):
        raise ValueError(f"not a suit: {value!r}")
    return SUITS.index(value)
