"""A Trio replay checked by playing each game again from its seed and picks."""

from __future__ import annotations

from typing import Any

from trio_arena.game import TrioState
from trio_arena.match import FORMAT, SIDES, game_result, match_result, seat_sides
from trio_arena.rules import TrioRules


def validate_replay(replay: Any) -> list[str]:
    try:
        problem = _first_problem(replay)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        problem = f"malformed replay: {error!r}"
    return [] if problem is None else [problem]


def _first_problem(replay: Any) -> str | None:
    if not isinstance(replay, dict) or replay.get("format") != FORMAT:
        return f"not a {FORMAT}"
    if replay.get("game") != "trio":
        return f"game {replay.get('game')!r} is not trio"
    if set(replay["players"]) != set(SIDES):
        return "players must be A, B and C"
    rules = TrioRules.from_dict(replay["rules"])
    games = replay["games"]
    forfeit = replay["result"].get("forfeit")
    for index, record in enumerate(games):
        problem = _game_problem(index, record, rules, str(replay["seed"]),
                                last=index == len(games) - 1, forfeit=forfeit)
        if problem:
            return f"game {index}: {problem}"
    if replay["result"] != match_result(games, forfeit):
        return "the match's result is not its games'"
    return None


def _game_problem(index: int, record: dict[str, Any], rules: TrioRules, seed: str, *,
                  last: bool, forfeit: Any) -> str | None:
    if record["seats"] != seat_sides(index):
        return "seats out of turn"
    state = TrioState(rules, seed=seed, game=index)
    if record["weights"] != state.weights:
        return "weights are not the seed's"
    moves = [pick for round_ in record["picks"] for pick in round_]
    moves += record.get("current", [])
    for move in moves:
        if state.is_terminal() or move not in state.legal_actions():
            return f"illegal pick {move!r}"
        state.apply(move)
    if state.picks != record["picks"]:
        return "rounds do not match their picks"
    if record.get("forfeit"):
        if not (last and record["forfeit"] == forfeit):
            return "a forfeit that is not the match's"
    elif not state.is_terminal():
        return "unfinished without a forfeit"
    if record["result"] != game_result(state, record["seats"]):
        return "result is not the picks'"
    return None
