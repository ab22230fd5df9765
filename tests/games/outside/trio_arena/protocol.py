"""Trio's bot protocol: picks are plain integers."""

from __future__ import annotations

import json
from typing import Any


def legal_to_wire(state: Any, legal: Any) -> list[Any]:
    return list(legal)


def action_from_wire(state: Any, value: Any) -> Any:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    return value


def action_to_wire(decision: str | None, action: Any) -> Any:
    return action


class ActWriter:
    def message(self, state: Any, legal: Any, mid: int, bank_ms: int) -> bytes:
        return (json.dumps({"type": "act", "id": mid, "decision": state.decision,
                            "legal": legal_to_wire(state, legal),
                            "state": state.observation(state.seat), "bank_ms": bank_ms})
                + "\n").encode()


def action_from_reply(state: Any, legal: Any, value: Any) -> Any:
    action = action_from_wire(state, value)
    if action not in legal:
        raise ValueError(f"{action!r} is not one of {list(legal)}")
    return action
