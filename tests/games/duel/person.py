"""Duel with a person at the table (engine.games.Game's "a person at the table", as the
working tree's protocol has it): what the person at seat 0 sees, the card they may post,
one-deal practice rules, and a finished game's result in words. Each seat plays for itself."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from engine import words
from tests.games.duel import DUEL
from tests.games.duel.game import DuelState
from tests.games.duel.protocol import legal_to_wire
from tests.games.duel.rules import DuelRules


def one_deal_rules(rules: DuelRules) -> DuelRules:
    return replace(rules, deals=1)


def person_view(state: DuelState, *, seq: int, move: dict[str, Any] | None,
                move_seconds: int, names: list[str]) -> dict[str, Any]:
    """What the person at seat 0 may see after `seq` moves: their hand, the trick on the
    table and the last one, the tricks taken; the legal cards when it is their turn."""
    seen = state.observation(0)
    over = state.is_terminal()
    yours = state.seat == 0 and not over
    tricks = seen["tricks"]
    last_trick = tricks[-1] if tricks else None
    if last_trick is None and state.log:
        last_trick = state.log[-1].to_dict()["tricks"][-1]
    now = int(time.time() * 1000)
    return {
        "game": DUEL, "seq": seq, "at": now, "over": over, "names": names,
        "seat": state.seat, "decision": state.decision if yours else None,
        "waiting_for": state.decision, "your_turn": yours,
        "legal": legal_to_wire(state, state.legal_actions()) if yours else [],
        "move_seconds": move_seconds,
        "deadline": now + move_seconds * 1000 if yours else None,
        "rules": state.rules.to_dict(),
        "deal": seen["deal"] - over, "dealer": seen["dealer"], "hand": seen["hand"],
        "hand_sizes": [h.bit_count() for h in state.hands],
        "trick": seen["trick"], "last_trick": last_trick, "taken": seen["taken"],
        "score": seen["score"], "last_move": move,
        "deals": [{"dealer": e.dealer, "taken": list(e.taken or ()),
                   "score": list(e.score or ())} for e in state.log],
    }


def person_action(view: dict[str, Any], action: Any) -> Any:
    """A card of `legal`; ValueError saying why not."""
    if not isinstance(action, str) or action not in view["legal"]:
        shown = "nothing" if action is None else str(action)[:20]
        raise ValueError(f"{shown} is not a legal {view['decision']} now")
    return action


def result_words(*, winner: int | None, score: list[int], names: list[str],
                 listed: bool) -> str:
    """"ada won (8 to 4)", or "a draw (6 to 6)": tricks by seat, the person's first."""
    tricks = words.score_text(score)
    return f"a draw ({tricks})" if winner is None else f"{names[winner]} won ({tricks})"
