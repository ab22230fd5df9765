"""A result of three or more players as the ratings read it (issue 42): a game may leave out
`points` (it is then rated by the games each side won; the finish raised KeyError), and its
`ups` are rated on the game's own scale (Game.ups_scale), not on Sergeant Major's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.games import get_game
from ladder import ratings
from ladder import services as ladder_services
from ladder.models import RatingChange
from matches import services
from matches.models import Match, MatchSide
from matches.runner import match_play_engine

pytestmark = pytest.mark.django_db


def _finished(make_sm_builtin: Callable[..., Any], edit: Callable[[dict[str, Any]], None]
              ) -> tuple[Match, dict[str, Any]]:
    """One scheduled Sergeant Major ladder match of three built-ins, its replay's result
    edited by `edit` before the finish."""
    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    ladder.queue_depth = 1
    ladder.save(update_fields=["queue_depth"])
    for name in ("g1", "r1", "r2"):
        make_sm_builtin(name, "builtin:greedy" if name == "g1" else "builtin:random")
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 1
    match, token = services.match_start(match_id=Match.objects.get(ladder=ladder).pk,
                                        worker="test")
    replay = match_play_engine(match=match).replay
    edit(replay["result"])
    assert services.match_finish(match_id=match.pk, token=token, replay=replay)
    return match, replay["result"]


def _changes(match: Match) -> dict[str, float]:
    letters = {side.version_id: "ABCDEFGH"[side.order]
               for side in MatchSide.objects.filter(match=match)}
    return {letters[c.entry.version_id]: c.after - c.before
            for c in RatingChange.objects.filter(match=match).select_related("entry")}


def _expected(pairs: list[Any]) -> dict[str, float]:
    return ratings.elo_changes_pairwise(  # type: ignore[return-value]
        ratings=dict.fromkeys("ABC", ratings.START), games=dict.fromkeys("ABC", 0), pairs=pairs)


def test_a_result_without_points_is_rated_by_the_games_won(
        make_sm_builtin: Callable[..., Any]) -> None:
    def drop(result: dict[str, Any]) -> None:
        result.pop("points"), result.pop("ups")

    match, result = _finished(make_sm_builtin, drop)
    points = {side: float(n) for side, n in result["games"].items()}
    assert _changes(match) == pytest.approx(_expected(ratings.pairwise_scores(points)))


def test_ups_are_rated_on_the_game_s_own_scale(
        make_sm_builtin: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game("sergeant-major")
    monkeypatch.setattr(type(game), "ups_scale", 40.0)  # a game that says another unit

    def spread(result: dict[str, Any]) -> None:  # ups far apart, points level
        result["points"] = {"A": 1.0, "B": 1.0, "C": 1.0}
        result["ups"] = {"A": 30, "B": 0, "C": -30}

    match, result = _finished(make_sm_builtin, spread)
    pairs = ratings.pairwise_scores(result["points"], result["ups"], ups_scale=40.0)
    assert _changes(match) == pytest.approx(_expected(pairs))
    at_ten = _expected(ratings.pairwise_scores(result["points"], result["ups"], ups_scale=10.0))
    assert _changes(match)["A"] < at_ten["A"]  # (Sergeant Major's unit would move it more)
