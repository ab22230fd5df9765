"""Kaiser with a person at the table (engine.games.Game's "a person at the table"): what the
person at seat 0 sees (the table page's JSON), the moves they may post, one-deal practice
rules, and a finished game's result in words. The person's partner is North (seat 2)."""

from __future__ import annotations

import time
from typing import Any

from engine import words
from engine.kaiser.cards import mask_names
from engine.kaiser.game import GameState
from engine.kaiser.protocol import legal_to_wire
from engine.kaiser.rules import Rules, replace


def one_deal_rules(rules: Rules) -> Rules:
    return replace(rules, max_deals=1)


def person_view(state: GameState, *, seq: int, move: dict[str, Any] | None,
                move_seconds: int, names: list[str]) -> dict[str, Any]:
    """What the person at seat 0 may see after `seq` moves: their hand, the bidding, the
    trick on the table and the last one, the score; the legal moves when it is their turn."""
    seen = state.observation(0)
    yours = state.seat == 0 and not state.is_terminal()
    tricks = seen["tricks"]
    last_trick = tricks[-1] if tricks else None
    if last_trick is None and state.log and state.log[-1].tricks:
        last_trick = state.log[-1].to_dict()["tricks"][-1]
    taken = [0, 0]
    for trick in tricks:
        taken[trick["winner"] % 2] += 1
    view: dict[str, Any] = {
        "seq": seq, "at": _now_ms(), "over": state.is_terminal(),
        "names": names, "seat": state.seat, "decision": state.decision if yours else None,
        "waiting_for": state.decision, "your_turn": yours,
        "legal": legal_to_wire(state, state.legal_actions()) if yours else [],
        "kitty": state.rules.kitty, "move_seconds": move_seconds,
        "deadline": _now_ms() + move_seconds * 1000 if yours else None,
        # Once the game is over, the deal shown is the last one played.
        "deal": seen["deal"] - state.is_terminal(), "dealer": seen["dealer"],
        "hand": seen["hand"],
        "hand_sizes": [h.bit_count() for h in state.hands],
        "bids": seen["bids"], "contract": seen["contract"], "trick": seen["trick"],
        "last_trick": last_trick, "taken": taken, "points": list(state.points),
        # Tricks completed in the whole game: the page keeps a trick just completed on the
        # table for a moment when this grows, though the bots may have led to the next.
        "tricks_done": _tricks_done(state),
        "score": seen["score"], "target": state.target, "last_move": move,
        "deals": [_deal_summary(entry.to_dict()) for entry in state.log],
    }
    if yours and state.decision == "discard":
        view["kitty_cards"] = mask_names(state.kitty)
    return view


def person_action(view: dict[str, Any], action: Any) -> Any:
    """The action if the view's decision allows it (a discard sorted); ValueError saying why
    not."""
    decision, legal = view["decision"], view["legal"]
    if decision == "discard":
        need = view["kitty"]
        if not (isinstance(action, list) and len(action) == need
                and all(isinstance(c, str) for c in action)):
            raise ValueError(f"a discard is a list of {need} cards")
        if len(set(action)) != need or not set(action) <= set(legal):
            raise ValueError(f"you may not discard {', '.join(map(str, action))}")
        return sorted(action)
    if isinstance(action, bool) != (decision == "misdeal") or action not in legal:
        shown = "nothing" if action is None else str(action)[:20]
        raise ValueError(f"{shown} is not a legal {decision} now")
    return action


def result_words(*, winner: int | None, score: list[int], names: list[str],
                 listed: bool) -> str:
    """The teams by their players ("ada and north-bot v2 won, 52 to 30"), or in a list of
    games by the person's name ("ada's team won, 52 to 30")."""
    person = names[0]
    if listed:
        teams = (f"{person}'s team", f"{person}'s opponents")
    else:
        teams = (f"{person} and {names[2]}", f"{names[1]} and {names[3]}")
    return result_text(winner=winner, score=score, teams=teams)


def result_text(*, winner: int | None, score: list[int], teams: tuple[str, str]) -> str:
    """"ada's team won, 52 to 30": the winner's score first; "drawn, 40 to 40"."""
    if winner is None:
        return f"drawn, {words.score_text(score)}"
    return f"{teams[winner]} won, {words.score_text([score[winner], score[1 - winner]])}"


def _tricks_done(state: GameState) -> int:
    # The deal under way is in the log too once it is scored (the game over): count it once.
    logged = sum(len(entry.tricks) for entry in state.log if entry.tricks is not state.tricks)
    return logged + len(state.tricks)


def _deal_summary(deal: dict[str, Any]) -> dict[str, Any]:
    return {"contract": deal["contract"], "misdeal": deal["misdeal"],
            "points": deal.get("points"), "delta": deal.get("delta"),
            "score": deal.get("score")}


def _now_ms() -> int:
    return int(time.time() * 1000)
