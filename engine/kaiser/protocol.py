"""The boundary between the engine's actions and the protocol's JSON (docs/protocol.md)."""

from __future__ import annotations

from typing import Any

from engine.kaiser.cards import CARD_NAMES, SUITS, bid_str, parse_bid, parse_card
from engine.kaiser.game import BID, DISCARD, MISDEAL, PLAY, PROTECTED, TRUMP, Action, GameState
from engine.wire import card_from_wire, suit_from_wire


def legal_to_wire(state: GameState, legal: Any) -> list[Any]:
    """The `legal` list of an `act` message (for `discard`: the cards that may be discarded)."""
    phase = state.phase
    if phase == PLAY:
        return [CARD_NAMES[c] for c in legal]
    if phase == BID:
        return [bid_str(b) for b in legal]
    if phase == TRUMP:
        return list(SUITS)
    if phase == DISCARD:
        return sorted({CARD_NAMES[c] for combo in legal for c in combo})
    if phase == MISDEAL:
        return [True, False]
    return []


def action_to_wire(decision: str | None, action: Action) -> Any:
    if decision == "play":
        return CARD_NAMES[action]  # type: ignore[index]
    if decision == "bid":
        return bid_str(action)  # type: ignore[arg-type]
    if decision == "trump":
        return SUITS[action]  # type: ignore[index]
    if decision == "discard":
        return [CARD_NAMES[c] for c in action]  # type: ignore[union-attr]
    return action


def action_from_wire(state: GameState, value: Any) -> Action:
    """The action a bot's reply names, if it is legal now; else ValueError saying why."""
    phase = state.phase
    if phase == PLAY:
        return card_from_wire(state, value, parse_card)
    if phase == BID:
        bid = parse_bid(value)
        if bid not in state.legal_actions():
            raise ValueError(f"bid {value} is not allowed now")
        return bid
    if phase == TRUMP:
        return suit_from_wire(value)
    if phase == DISCARD:
        return _discard_from_wire(state, value)
    if phase == MISDEAL:
        if not isinstance(value, bool):
            raise ValueError(f"misdeal answer must be true or false, not {value!r}")
        return value
    raise ValueError("no decision is pending")


def _discard_from_wire(state: GameState, value: Any) -> tuple[int, ...]:
    need = state.rules.kitty
    if not isinstance(value, list) or len(value) != need:
        raise ValueError(f"discard must be a list of {need} cards, not {value!r}")
    hand = state.hands[state.seat]
    cards = set()
    for text in value:
        card = parse_card(text)
        if 1 << card & PROTECTED:
            raise ValueError(f"{text} may never be discarded")
        if not hand >> card & 1:
            raise ValueError(f"{text} is not in the hand")
        cards.add(card)
    if len(cards) != need:
        raise ValueError(f"discard names a card twice: {value!r}")
    return tuple(sorted(cards))
