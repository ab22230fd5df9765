"""Quartet's actions in the bot protocol's JSON: one decision, `play`, whose action is a card's
name ("3H"); `legal` lists the cards that may be played."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.wire import card_from_wire
from tests.games.quartet.cards import CARD_NAMES, CARD_OF, parse_card
from tests.games.quartet.game import PLAY, QuartetState


def legal_to_wire(state: QuartetState, legal: Sequence[int]) -> list[Any]:
    return [CARD_NAMES[c] for c in legal]


def action_to_wire(decision: str | None, action: int) -> Any:
    return CARD_NAMES[action] if decision == "play" else action


def action_from_wire(state: QuartetState, value: Any) -> int:
    """The card a bot's reply names, if it may be played now; else ValueError saying why."""
    if state.phase != PLAY:
        raise ValueError("no decision is pending")
    return card_from_wire(state, value, parse_card)


def act_message(state: QuartetState, legal: Sequence[int], mid: int, bank_ms: int) -> bytes:
    """The `act` message for the seat on move, as one JSON line."""
    message = {"type": "act", "id": mid, "decision": state.decision,
               "legal": legal_to_wire(state, legal),
               "state": {**state.observation(state.seat), "bank_ms": bank_ms}}
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class ActWriter:
    """The botproc's writer of Quartet's act messages."""

    __slots__ = ()

    def message(self, state: QuartetState, legal: Sequence[int], mid: int, bank_ms: int) -> bytes:
        return act_message(state, legal, mid, bank_ms)


def action_from_reply(state: QuartetState, legal: Sequence[int], value: Any) -> int:
    """The card a reply names, if legal; else ValueError saying why."""
    if type(value) is str and value in CARD_OF and CARD_OF[value] in legal:
        return CARD_OF[value]
    return action_from_wire(state, value)
