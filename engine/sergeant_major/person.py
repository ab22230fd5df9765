"""Sergeant Major with a person at the table (engine.games.Game's "a person at the table"):
what the person at seat 0 sees (the table page's JSON), the moves they may post, one-hand
practice rules, and a finished game's result in words. Each seat plays for itself."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from engine import words
from engine.sergeant_major import SERGEANT_MAJOR
from engine.sergeant_major.cards import mask_names
from engine.sergeant_major.game import SMState
from engine.sergeant_major.protocol import decision_count, legal_to_wire
from engine.sergeant_major.rules import SMRules

LISTS = ("give", "return", "discard")  # the decisions whose move is a list of cards


def one_deal_rules(rules: SMRules) -> SMRules:
    """One hand, its point to the best total unless someone takes 12."""
    return replace(rules, hands=1, max_hands=1)


def person_view(state: SMState, *, seq: int, move: dict[str, Any] | None,
                move_seconds: int, names: list[str]) -> dict[str, Any]:
    """What the person at seat 0 may see after `seq` moves: their hand and target, everyone's
    targets, the exchanges the person gives or gets (their cards; the others' only by count),
    trump, the person's discards (when dealing), the trick on the table and the last one, the
    tricks taken, the ups and downs of each hand; the legal moves when it is their turn."""
    seen = state.observation(0)
    over = state.is_terminal()
    yours = state.seat == 0 and not over
    tricks = seen["tricks"]
    last_trick = tricks[-1] if tricks else None
    if last_trick is None and state.log and state.log[-1].tricks:
        last_trick = state.log[-1].to_dict()["tricks"][-1]
    rules = state.rules
    view: dict[str, Any] = {
        "game": SERGEANT_MAJOR, "seq": seq, "at": _now_ms(), "over": over, "names": names,
        "seat": state.seat, "decision": state.decision if yours else None,
        "waiting_for": state.decision, "your_turn": yours,
        "legal": legal_to_wire(state, state.legal_actions()) if yours else [],
        "count": decision_count(state) if yours else None,
        "kitty": rules.kitty, "move_seconds": move_seconds,
        "deadline": _now_ms() + move_seconds * 1000 if yours else None,
        "rules": rules.to_dict(),
        # Once the game is over, the hand shown is the last one played.
        "deal": seen["deal"] - over, "dealer": seen["dealer"], "targets": seen["targets"],
        "hand": seen["hand"], "hand_sizes": [h.bit_count() for h in state.hands],
        "exchanges": seen["exchanges"], "trump": seen["trump"], "discards": seen["discards"],
        "trick": seen["trick"], "last_trick": last_trick, "taken": seen["taken"],
        "tricks_done": sum(len(e.tricks) for e in state.log) + (0 if over else len(tricks)),
        "score": seen["score"], "last": seen["last"], "last_move": move,
        "deals": [_hand_summary(entry.to_dict()) for entry in state.log],
    }
    if yours and state.decision == "discard" and rules.kitty_first:
        view["kitty_cards"] = mask_names(state.kitty)
    return view


def person_action(view: dict[str, Any], action: Any) -> Any:
    """A card or a suit from `legal`; for give, return and discard a list of `count` cards of
    `legal` (for return, exactly the cards that must go back), sorted. ValueError saying why
    not."""
    decision, legal = view["decision"], view["legal"]
    if decision in LISTS:
        need = view["count"]
        if not (isinstance(action, list) and len(action) == need
                and all(isinstance(c, str) for c in action)):
            raise ValueError(f"a {decision} is a list of {need} card{'s' * (need != 1)}")
        if len(set(action)) != need or not set(action) <= set(legal):
            raise ValueError(f"you may not {decision} {', '.join(action)}")
        if decision == "return" and set(action) != set(legal):
            raise ValueError(f"the cards to return are {', '.join(legal)}")
        return sorted(action)
    if not isinstance(action, str) or action not in legal:
        shown = "nothing" if action is None else str(action)[:20]
        raise ValueError(f"{shown} is not a legal {decision} now")
    return action


def result_words(*, winner: int | None, score: list[int], names: list[str],
                 listed: bool) -> str:
    """"ada won (17, −6, −11)", "greedy won (...)" (scores by seat: the person, West, East),
    "no winner, East ahead (...)" when no one won but one seat leads (a resigned game), or "no
    outright winner (...)" when the lead was shared; the same in a list of games."""
    scores = ", ".join(words.number(n) for n in score)
    if winner is None:
        leaders = [seat for seat, n in enumerate(score) if n == max(score)]
        if len(leaders) == 1:
            return f"no winner, {names[leaders[0]]} ahead ({scores})"
        return f"no outright winner ({scores})"
    return f"{names[winner]} won ({scores})"


def _hand_summary(hand: dict[str, Any]) -> dict[str, Any]:
    return {key: hand.get(key) for key in ("dealer", "targets", "trump", "taken", "delta",
                                           "score")}


def _now_ms() -> int:
    return int(time.time() * 1000)
