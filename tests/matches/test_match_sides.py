"""A match's players as rows (`MatchSide`, issue 32): made with the match, given their part of
the result when it is finished (games, points, stderr, fault) or walked over, shown by the
API as `sides` (stderr only to its owner), and made by migration 0009 for every match that
was there before, from the columns, with nothing lost."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from bots.services import bot_retire
from ladder import services as ladder_services
from ladder.models import Ladder
from matches import services
from matches.models import Match, MatchSide
from tournaments import services as tournament_services

BEFORE = ("matches", "0008_match_outcome")
AFTER = ("matches", "0009_matchside")

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
    match = services.match_create(version_a=a, version_b=b, kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=True)
    assert _rows(match) == [(0, a.pk, None, None, "", ""), (1, b.pk, None, None, "", "")]
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    match.refresh_from_db()
    sides = list(match.sides.order_by("order"))
    assert [s.letter for s in sides] == ["A", "B"]
    assert [s.games for s in sides] == [match.games_a, match.games_b]
    assert sum(s.games for s in sides) <= 2 and all(s.points is None for s in sides)
    assert [s.fault for s in sides] == ["", ""]


@pytest.mark.django_db
def test_a_sergeant_major_match_has_three_sides_with_their_points(
        make_sm_builtin: Callable[..., Any]) -> None:
    ladder = ladder_services.game_ladder_ensure("sergeant-major")
    versions = [make_sm_builtin(n, s) for n, s in (("sg", "builtin:greedy"),
                                                   ("sr1", "builtin:random"),
                                                   ("sr2", "builtin:random"))]
    match = services.match_create(version_a=versions[0], version_b=versions[1],
                                  version_c=versions[2], kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=True)
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    match.refresh_from_db()
    rows = _rows(match)
    assert [r[:2] for r in rows] == [(i, v.pk) for i, v in enumerate(versions)]
    assert [r[2] for r in rows] == [match.games_a, match.games_b, match.games_c]
    assert {"ABC"[r[0]]: r[3] for r in rows} == match.points


@pytest.mark.django_db
def test_a_side_that_forfeits_keeps_its_fault_and_its_stderr(
        make_builtin: Callable[..., Any], make_program: Callable[..., Any], owner: Any,
        clients: dict[str, APIClient]) -> None:
    ladder = Ladder.objects.create(name="Faults", slug="faults", games_per_match=2)
    good = make_builtin("sides-fine", own=True)
    bad = make_program("sides-illegal", BAD_STDERR_BOT, owner=owner)
    match = services.match_create(version_a=good, version_b=bad, kind=Match.Kind.LADDER,
                                  conditions=ladder, ladder=ladder, rated=True)
    assert services.match_play(match_id=match.pk, worker="test") == "finished"
    match.refresh_from_db()
    assert match.forfeit_player == "B"
    a, b = match.sides.order_by("order")
    assert (a.fault, b.fault) == ("", match.forfeit_reason) and b.fault
    assert "thinking out loud" in b.stderr and b.stderr == match.stderr_b
    url = f"/api/v1/matches/{match.pk}/"
    for who, sees in (("owner", True), ("staff", True), ("other", False), ("anon", False)):
        body = clients[who].get(url).json()
        assert [s["side"] for s in body["sides"]] == ["A", "B"]
        assert [s["name"] for s in body["sides"]] == ["sides-fine", "sides-illegal"]
        assert body["sides"][1]["fault"] == match.forfeit_reason
        assert body["sides"][1]["games"] == match.games_b
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


# --- Migration 0009 on a populated database -------------------------------------------------


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


@pytest.fixture
def before_sides(transactional_db: None) -> Iterator[Apps]:
    """The historical models of the database migrated back to just before the sides table;
    migrated to the latest again afterwards, also when the test fails."""
    try:
        executor = _executor()
        executor.migrate([BEFORE])
        executor = _executor()
        assert AFTER not in executor.loader.applied_migrations
        yield executor.loader.project_state([BEFORE]).apps
    finally:
        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())


def _fill(apps: Apps) -> dict[str, Any]:
    User = apps.get_model("auth", "User")
    Bot = apps.get_model("bots", "Bot")
    BotProgram = apps.get_model("bots", "BotProgram")
    BotVersion = apps.get_model("bots", "BotVersion")
    Match = apps.get_model("matches", "Match")
    author = User.objects.create(username="sides-author")
    program = BotProgram.objects.create(sha256="cd" * 32, content=b"print('hi')\n", size=12)
    versions = [BotVersion.objects.create(
        bot=Bot.objects.create(owner=author, name=f"mig-{name}", game=game), number=1,
        kind="py", program=program, filename="bot.py", size=12, status="active")
        for name, game in (("k1", "kaiser"), ("k2", "kaiser"), ("s1", "sergeant-major"),
                           ("s2", "sergeant-major"), ("s3", "sergeant-major"))]
    k1, k2, s1, s2, s3 = versions
    common = {"kind": "ladder", "seed": "s"}
    kaiser = Match.objects.create(version_a=k1, version_b=k2, status="finished", score=0.5,
                                  games_a=1, games_b=1, stderr_a="a's words\n", **common)
    forfeit = Match.objects.create(version_a=k2, version_b=k1, status="finished", score=0.0,
                                   games_a=0, games_b=2, forfeit_player="A",
                                   forfeit_reason="illegal", stderr_b="b's words", **common)
    queued = Match.objects.create(version_a=k1, version_b=k2, **common)
    sm = Match.objects.create(
        version_a=s1, version_b=s2, version_c=s3, game="sergeant-major", rules="952",
        games_per_match=3, status="finished", score=0.5, games_a=2, games_b=1, games_c=0,
        points={"A": 1.5, "B": 1.0, "C": 0.5}, stderr_c="c's words", **common)
    walkover = Match.objects.create(
        version_a=s3, version_b=s1, version_c=s2, game="sergeant-major", rules="952",
        games_per_match=3, status="void", score=0.5, points={"A": 0.0, "B": 1.5, "C": 1.5},
        forfeit_player="A", forfeit_reason="withdrawn", **common)
    many = [Match.objects.create(version_a=k2, version_b=k1, status="finished", games_a=i % 3,
                                 games_b=2 - i % 3, score=(i % 3) / 2, **common)
            for i in range(5)]
    return {"versions": versions, "kaiser": kaiser.pk, "forfeit": forfeit.pk,
            "queued": queued.pk, "sm": sm.pk, "walkover": walkover.pk,
            "many": [m.pk for m in many]}


def test_migration_0009_makes_every_matchs_sides_from_its_columns(before_sides: Apps) -> None:
    made = _fill(before_sides)
    k1, k2, s1, s2, s3 = (v.pk for v in made["versions"])
    executor = _executor()
    executor.migrate([AFTER])
    assert _rows(Match(pk=made["kaiser"])) == [(0, k1, 1, None, "a's words\n", ""),
                                               (1, k2, 1, None, "", "")]
    assert _rows(Match(pk=made["forfeit"])) == [(0, k2, 0, None, "", "illegal"),
                                                (1, k1, 2, None, "b's words", "")]
    assert _rows(Match(pk=made["queued"])) == [(0, k1, None, None, "", ""),
                                               (1, k2, None, None, "", "")]
    assert _rows(Match(pk=made["sm"])) == [(0, s1, 2, 1.5, "", ""), (1, s2, 1, 1.0, "", ""),
                                           (2, s3, 0, 0.5, "c's words", "")]
    assert _rows(Match(pk=made["walkover"])) == [(0, s3, None, 0.0, "", "withdrawn"),
                                                 (1, s1, None, 1.5, "", ""),
                                                 (2, s2, None, 1.5, "", "")]
    for pk, i in zip(made["many"], range(5), strict=True):
        assert _rows(Match(pk=pk)) == [(0, k2, i % 3, None, "", ""),
                                       (1, k1, 2 - i % 3, None, "", "")]
    # Every match has as many sides as it has players, and no side is made twice.
    assert MatchSide.objects.count() == 2 * 8 + 3 * 2
    # The columns are untouched: the readers still read them.
    # (only this column: the model has columns later migrations add)
    assert Match.objects.filter(pk=made["sm"]).values_list("points", flat=True).get() == {
        "A": 1.5, "B": 1.0, "C": 0.5}
    # And back: the table goes, the matches stay.
    _executor().migrate([BEFORE])
    old = _executor().loader.project_state([BEFORE]).apps
    assert old.get_model("matches", "Match").objects.count() == 10
