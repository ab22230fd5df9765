"""A Sergeant Major match on the site: made for three bots of the game, played in the engine
of its game (bot programs in the sandbox), finished once with its result, statistics and
ratings; Kaiser's boards skipped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry, RatingChange
from matches import services
from matches.models import BoardLoss, Match
from matches.stats import all_stats, play_stats_fold, version_stats
from tests.factories import side_rows

pytestmark = pytest.mark.django_db

CRASH_ON_FIRST_ACT = b"""import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": m["id"], "type": "ready", "game": "sergeant-major"}), flush=True)
    elif m["type"] == "act":
        sys.stderr.write("giving up now\\n")
        sys.exit(3)
"""


@pytest.fixture
def sm_ladder() -> Ladder:
    return ladder_services.game_ladder_ensure("sergeant-major")


def _play(ladder: Ladder, a: Any, b: Any, c: Any) -> Match:
    match = services.match_create(versions=[a, b, c], kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=True)
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    return Match.objects.get(pk=match.pk)


def test_a_match_of_three_built_in_players_is_played_and_stored(
        sm_ladder: Ladder, make_sm_builtin: Callable[..., Any]) -> None:
    a, b, c = (make_sm_builtin(n, s) for n, s in (("g1", "builtin:greedy"),
                                                   ("r1", "builtin:random"),
                                                   ("r2", "builtin:random")))
    match = _play(sm_ladder, a, b, c)
    replay = match.replay()
    assert replay["format"] == "sergeant-major-replay"
    assert [replay["players"][s]["name"] for s in "ABC"] == ["g1", "r1", "r2"]
    result = replay["result"]
    sides = side_rows(match)
    assert [s.games for s in sides] == [result["games"][s] for s in "ABC"]
    assert match.score == pytest.approx(result["score"]["A"])
    assert {s.letter: s.points for s in sides} == result["points"]
    assert match.board_comparison() is None and not BoardLoss.objects.filter(match=match).exists()
    assert set(match.stats) == {"A", "B", "C"}
    assert match.stats["A"]["hands"] == 18  # three games of six hands
    assert sum(match.stats[s]["games"]["won"] for s in "ABC") <= 3


def test_the_three_rating_changes_are_written_once_and_follow_the_points(
        sm_ladder: Ladder, make_sm_builtin: Callable[..., Any]) -> None:
    a, b, c = (make_sm_builtin(n, s) for n, s in (("g1", "builtin:greedy"),
                                                   ("r1", "builtin:random"),
                                                   ("r2", "builtin:random")))
    match = _play(sm_ladder, a, b, c)
    changes = {ch.entry.version_id: ch.delta for ch in RatingChange.objects.filter(match=match)}
    assert set(changes) == {a.pk, b.pk, c.pk}
    assert sum(changes.values()) == pytest.approx(0.0)
    points = {s.letter: s.points for s in side_rows(match)}
    best = max("ABC", key=lambda s: points[s])
    by_side = dict(zip("ABC", (a.pk, b.pk, c.pk), strict=True))
    if points[best] > max(points[s] for s in "ABC" if s != best):
        assert changes[by_side[best]] > 0
    # A second finish of the same match (a redelivered task) writes nothing.
    token = "not-the-holder"
    assert not services.match_finish(match_id=match.pk, token=token, replay=match.replay())
    assert RatingChange.objects.filter(match=match).count() == 3
    entries = LadderEntry.objects.filter(ladder=sm_ladder)
    assert sorted(e.games for e in entries) == [1, 1, 1]


def test_statistics_fold_into_the_versions_and_the_games_own_totals(
        sm_ladder: Ladder, make_sm_builtin: Callable[..., Any]) -> None:
    a, b, c = (make_sm_builtin(n, "builtin:random") for n in ("r1", "r2", "r3"))
    _play(sm_ladder, a, b, c)
    assert play_stats_fold() == 1
    for v in (a, b, c):
        assert version_stats(version_id=v.pk)["hands"] == 18
    assert all_stats(game="sergeant-major")["matches"] == 3
    assert all_stats() is None  # Kaiser's totals count no Sergeant Major match


def test_a_fault_of_player_c_forfeits_and_keeps_its_stderr(
        sm_ladder: Ladder, make_sm_builtin: Callable[..., Any],
        make_sm_program: Callable[..., Any]) -> None:
    a, b = make_sm_builtin("g1"), make_sm_builtin("r1", "builtin:random")
    c = make_sm_program("quitter", CRASH_ON_FIRST_ACT)
    match = _play(sm_ladder, a, b, c)
    c_side = side_rows(match)[2]
    assert match.fault_side == c_side and c_side.fault == "crash"
    assert "giving up now" in c_side.stderr
    assert c_side.points == 0.0 and c_side.games == 0
    changes = {ch.entry.version_id: ch.delta for ch in RatingChange.objects.filter(match=match)}
    assert changes[c.pk] < 0


def test_a_match_needs_three_bots_of_its_game(
        sm_ladder: Ladder, make_sm_builtin: Callable[..., Any],
        make_builtin: Callable[..., Any]) -> None:
    a, b = make_sm_builtin("g1"), make_sm_builtin("r1", "builtin:random")
    kaiser = make_builtin("kaiser-greedy", own=True)
    with pytest.raises(ValidationError, match="3 players"):
        services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                              conditions=sm_ladder, ladder=sm_ladder)
    with pytest.raises(ValidationError, match="plays kaiser, not sergeant-major"):
        services.match_create(versions=[a, b, kaiser],
                              kind=Match.Kind.LADDER, conditions=sm_ladder, ladder=sm_ladder)
    main = Ladder.objects.get(slug="main")
    with pytest.raises(ValidationError, match="plays sergeant-major, not kaiser"):
        services.match_create(versions=[kaiser, a], kind=Match.Kind.LADDER,
                              conditions=main, ladder=main)
