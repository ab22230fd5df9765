"""Sergeant Major's actions in the bot protocol's JSON (docs/protocol.md, "Sergeant Major").

Decisions: `give` and `return` (the exchange), `trump`, `discard`, `play`. A card is its name
("AS"), a suit its letter ("S"); `give`, `return` and `discard` take a list of `count` cards.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from engine.sergeant_major.cards import CARD_NAMES, SUITS, cards_mask, parse_card
from engine.sergeant_major.game import (
    DISCARD,
    GIVE,
    PLAY,
    RETURN,
    TRUMP,
    Action,
    CardSets,
    SMState,
    forced_return,
)
from engine.wire import card_from_wire, suit_from_wire

LIST_DECISIONS = (GIVE, RETURN, DISCARD)


def decision_count(state: SMState) -> int | None:
    """How many cards the list decisions (give, return, discard) take; None for the others."""
    phase = state.phase
    if phase in (GIVE, RETURN):
        return int(state.exchanges[-1][2])
    if phase == DISCARD:
        return state.rules.kitty
    return None


def legal_to_wire(state: SMState, legal: Sequence[Action]) -> list[Any]:
    """The `legal` list of an `act` message: for give and discard the cards that may be
    chosen from, for return the cards that must go back."""
    phase = state.phase
    if phase == PLAY:
        return [CARD_NAMES[c] for c in legal]  # type: ignore[index]
    if phase == TRUMP:
        return list(SUITS)
    if phase in LIST_DECISIONS:
        cards = legal.cards if isinstance(legal, CardSets) else sorted(
            {c for combo in legal for c in combo})  # type: ignore[union-attr]
        return [CARD_NAMES[c] for c in cards]
    return []


def action_to_wire(decision: str | None, action: Action) -> Any:
    if decision in ("play",):
        return CARD_NAMES[action]  # type: ignore[index]
    if decision == "trump":
        return SUITS[action]  # type: ignore[index]
    if decision in ("give", "return", "discard"):
        return [CARD_NAMES[c] for c in cast(tuple[int, ...], action)]
    return action


def action_from_wire(state: SMState, value: Any) -> Action:
    """The action a bot's reply names, if it is legal now; else ValueError saying why."""
    phase = state.phase
    if phase == PLAY:
        return card_from_wire(state, value, parse_card)
    if phase == TRUMP:
        return suit_from_wire(value)
    if phase in LIST_DECISIONS:
        return _cards_from_wire(state, value)
    raise ValueError("no decision is pending")


def _cards_from_wire(state: SMState, value: Any) -> tuple[int, ...]:
    need = decision_count(state)
    what = state.decision
    if not isinstance(value, list) or len(value) != need:
        raise ValueError(f"{what} must be a list of {need} cards, not {_short(value)}")
    cards = tuple(sorted(parse_card(text) for text in value))
    if len(set(cards)) != need:
        raise ValueError(f"{what} names a card twice: {_short(value)}")
    hand = state.hands[state.seat]
    for card in cards:
        if not hand >> card & 1:
            raise ValueError(f"{CARD_NAMES[card]} is not in the hand")
    if state.phase == RETURN:
        forced = forced_return(state.hands[state.seat], state.exchanges[-1][3])
        if cards != forced:
            raise ValueError(f"the cards to return are {[CARD_NAMES[c] for c in forced]} "
                             f"(the highest of each suit received, or the card itself)")
    return cards


def _short(value: Any) -> str:
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 80 else text[:80] + "…"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def act_message(state: SMState, legal: Sequence[Action], mid: int, bank_ms: int) -> bytes:
    """The `act` message for the seat on move, as one JSON line."""
    message: dict[str, Any] = {"type": "act", "id": mid, "decision": state.decision}
    count = decision_count(state)
    if count is not None:
        message["count"] = count
    message["legal"] = legal_to_wire(state, legal)
    message["state"] = {**state.observation(state.seat), "bank_ms": bank_ms}
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class ActWriter:
    """The botproc's writer for Sergeant Major (Kaiser's is engine.kaiser.wire.ActWriter)."""

    __slots__ = ()

    def message(self, state: SMState, legal: Sequence[Action], mid: int, bank_ms: int) -> bytes:
        return act_message(state, legal, mid, bank_ms)


def action_from_reply(state: SMState, legal: Sequence[Action], value: Any) -> Action:
    """The action a reply names, if legal; else ValueError (engine.kaiser.wire's, for this game)."""
    if type(value) is str and state.phase == PLAY:
        card = parse_card(value) if value in _CARD_SET else None
        if card is not None and card in legal:
            return card
    return action_from_wire(state, value)


_CARD_SET = frozenset(CARD_NAMES)
__all__ = ["legal_to_wire", "action_to_wire", "action_from_wire", "act_message", "ActWriter",
           "action_from_reply", "cards_mask"]
