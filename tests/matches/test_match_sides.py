"""A match's players as rows (`MatchSide`, issue 32): made with the match, given their part of
the result when it is finished (games, points, ups, stderr, fault) or walked over, shown by
the API as `sides` (stderr only to its owner); since issue 42 the only record of them (the
migrations that made them and dropped the columns: tests/migrations/)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from bots.services import bot_retire
from ladder import services as ladder_services
from ladder.models import Ladder
from matches import services
from matches.models import Match, MatchSide
from tournaments import services as tournament_services

BAD_STDERR_BOT = b"""import json, sys
sys.stderr.write("thinking out loud\\n")
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": m["id"], "type": "ready"}), flush=True)
    elif m["type"] == "act":
        print(json.dumps({"id": m["id"], "type": "action", "action": "not a move"}), flush=True)
"""


def _rows(match: Match) -> list[tuple[Any, ...]]:
    return list(MatchSide.objects.filter(match=match).order_by("order").values_list(
        "order", "version_id", "games", "points", "stderr", "fault"))


@pytest.mark.django_db
def test_a_kaiser_match_has_two_sides_made_with_it_and_finished_with_its_result(
        make_builtin: Callable[..., Any]) -> None:
    ladder = Ladder.objects.create(name="Sides", slug="sides", games_per_match=2)
    a, b = make_builtin("sides-greedy", own=True), make_builtin("sides-random",
                                                                 "builtin:random", own=True)
    match = services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=True)
    assert _rows(match) == [(0, a.pk, None, None, "", ""), (1, b.pk, None, None, "", "")]
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    match.refresh_from_db()
    sides = list(match.sides.order_by("order"))
    assert [s.letter for s in sides] == ["A", "B"]
    assert [s.games for s in sides] == [
        match.replay()["result"]["games"][letter] for letter in "AB"]  # type: ignore[index]
    assert sum(s.games for s in sides) <= 2 and all(s.points is None for s in sides)
    assert [s.fault for s in sides] == ["", ""] and match.version_ids == [a.pk, b.pk]


@pytest.mark.django_db
def test_a_sergeant_major_match_has_three_sides_with_their_points(
        make_sm_builtin: Callable[..., Any]) -> None:
    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    versions = [make_sm_builtin(n, s) for n, s in (("sg", "builtin:greedy"),
                                                   ("sr1", "builtin:random"),
                                                   ("sr2", "builtin:random"))]
    match = services.match_create(versions=versions, kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=True)
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    match.refresh_from_db()
    result = match.replay()["result"]  # type: ignore[index]
    rows = _rows(match)
    assert [r[:2] for r in rows] == [(i, v.pk) for i, v in enumerate(versions)]
    assert [r[2] for r in rows] == [result["games"][letter] for letter in "ABC"]
    assert {"ABC"[r[0]]: r[3] for r in rows} == result["points"]
    ups = list(match.sides.order_by("order").values_list("ups", flat=True))
    assert ups == [result["ups"][letter] for letter in "ABC"]


@pytest.mark.django_db
def test_a_side_that_forfeits_keeps_its_fault_and_its_stderr(
        make_builtin: Callable[..., Any], make_program: Callable[..., Any], owner: Any,
        clients: dict[str, APIClient]) -> None:
    ladder = Ladder.objects.create(name="Faults", slug="faults", games_per_match=2)
    good = make_builtin("sides-fine", own=True)
    bad = make_program("sides-illegal", BAD_STDERR_BOT, owner=owner)
    match = services.match_create(versions=[good, bad], kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=True)
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    match.refresh_from_db()
    assert match.fault_side is not None and match.fault_side.letter == "B"
    a, b = match.sides.order_by("order")
    assert (a.fault, b.fault) == ("", match.forfeit["reason"]) and b.fault  # type: ignore[index]
    assert "thinking out loud" in b.stderr
    url = f"/api/v1/matches/{match.pk}/"
    for who, sees in (("owner", True), ("staff", True), ("other", False), ("anon", False)):
        body = clients[who].get(url).json()
        assert [s["side"] for s in body["sides"]] == ["A", "B"]
        assert [s["name"] for s in body["sides"]] == ["sides-fine", "sides-illegal"]
        assert body["sides"][1]["fault"] == b.fault
        assert body["sides"][1]["games"] == b.games
        assert sorted(body) == sorted(  # the players as sides only: no column of a side
            ["id", "kind", "status", "ladder", "tournament", "round", "rated", "game", "sides",
             "seed", "rules", "games_per_match", "time", "score", "forfeit", "error",
             "created", "started", "finished", "play_ms", "attempts", "replay_size"])
        # Another owner's bot: only staff see its stderr.
        assert (body["sides"][0]["stderr"] is None) is (who != "staff"), who
        assert (body["sides"][1]["stderr"] == b.stderr) is sees, who
        assert (body["sides"][1]["stderr"] is None) is not sees, who
    listed = clients["anon"].get("/api/v1/matches/", {"bot": "sides-illegal"}).json()
    assert [s["version"] for s in listed["results"][0]["sides"]] == [good.pk, bad.pk]


@pytest.mark.django_db
def test_a_walkover_gives_the_withdrawn_side_its_fault(make_builtin: Callable[..., Any]) -> None:
    field = [make_builtin(n) for n in ("wa", "wb", "wc", "wd")]
    tournament = tournament_services.tournament_create(name="RR sides", format="round_robin",
                                                       versions=field)
    bot_retire(bot=field[3].bot)
    walkovers = list(tournament.matches.filter(status=Match.Status.WALKOVER))
    assert walkovers
    for match in walkovers:
        faults = {s.version_id: s.fault for s in match.sides.all()}
        assert faults[field[3].pk] == "withdrawn"
        assert [f for v, f in faults.items() if v != field[3].pk] == [""]
