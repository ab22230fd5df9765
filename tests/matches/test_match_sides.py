"""A match's players as rows (`MatchSide`, issue 32): made with the match, given their part of
the result when it is finished (games, points, ups, stderr, fault) or walked over, shown by
the API as `sides` (stderr only to its owner), made by migration 0009 for every match that
was there before, from the columns, with nothing lost; and, since migration 0013 (issue 42),
the only record of them: the columns dropped, their facts kept both ways."""

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
COLUMNS = ("matches", "0012_match_times")
ROWS_ONLY = ("matches", "0013_match_sides_only")

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
        assert not {"a", "b", "c", "games_a", "stderr_b"} & body.keys()
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
    walkovers = list(tournament.matches.filter(status=Match.Status.VOID))
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
    # The columns are untouched (read through the models of this schema).
    then = _executor().loader.project_state([AFTER]).apps.get_model("matches", "Match")
    assert then.objects.filter(pk=made["sm"]).values_list("points", flat=True).get() == {
        "A": 1.5, "B": 1.0, "C": 0.5}
    # And back: the table goes, the matches stay.
    _executor().migrate([BEFORE])
    old = _executor().loader.project_state([BEFORE]).apps
    assert old.get_model("matches", "Match").objects.count() == 10


# --- Migration 0013: the sides' rows only, there and back --------------------------------


@pytest.fixture
def with_columns(transactional_db: None) -> Iterator[Apps]:
    """The historical models just before the columns were dropped; the database migrated to
    the latest again afterwards, also when the test fails."""
    try:
        executor = _executor()
        executor.migrate([COLUMNS])
        yield _executor().loader.project_state([COLUMNS]).apps
    finally:
        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())


def _side_facts(apps: Apps, match_id: int) -> list[tuple[Any, ...]]:
    side = apps.get_model("matches", "MatchSide")
    fields = ["order", "version_id", "games", "points", "stderr", "fault"]
    if any(f.name == "ups" for f in side._meta.get_fields()):
        fields.append("ups")
    return list(side.objects.filter(match_id=match_id).order_by("order").values_list(*fields))


COLUMN_FIELDS = ("version_a_id", "version_b_id", "version_c_id", "games_a", "games_b",
                 "games_c", "stderr_a", "stderr_b", "stderr_c", "points", "ups",
                 "forfeit_player", "forfeit_reason")


def test_migration_0013_keeps_every_sides_facts_there_and_back(with_columns: Apps) -> None:
    """Real rows at the schema with both records (one match whose rows are missing, as a
    bulk load without them would leave it): to the rows only, every fact is on the sides
    (the missing rows made, the ups moved); and back, the columns say what they said."""
    apps = with_columns
    made = _fill(apps)
    k1, k2, s1, s2, s3 = (v.pk for v in made["versions"])
    old_match, old_side = apps.get_model("matches", "Match"), apps.get_model("matches",
                                                                             "MatchSide")
    sm = old_match.objects.get(pk=made["sm"])
    sm.ups, sm.forfeit_player, sm.forfeit_reason = {"A": 4.0, "B": -1.0, "C": -3.0}, "", ""
    sm.save(update_fields=["ups", "forfeit_player", "forfeit_reason"])
    sides = [old_side(match_id=pk, order=order, version_id=v, games=g, points=p,
                      stderr=e, fault=f)
             for pk, rows in ((made["kaiser"], [(k1, 1, None, "a's words\n", ""),
                                                (k2, 1, None, "", "")]),
                              (made["forfeit"], [(k2, 0, None, "", "illegal"),
                                                 (k1, 2, None, "b's words", "")]),
                              (made["sm"], [(s1, 2, 1.5, "", ""), (s2, 1, 1.0, "", ""),
                                            (s3, 0, 0.5, "c's words", "")]))
             for order, (v, g, p, e, f) in enumerate(rows)]
    old_side.objects.bulk_create(sides)  # the rest have none yet
    before = {pk: old_match.objects.filter(pk=pk).values(*COLUMN_FIELDS).get()
              for pk in [made["kaiser"], made["forfeit"], made["queued"], made["sm"],
                         made["walkover"], *made["many"]]}

    _executor().migrate([ROWS_ONLY])
    now = _executor().loader.project_state([ROWS_ONLY]).apps
    assert not {f.name for f in now.get_model("matches", "Match")._meta.get_fields()} & {
        "version_a", "games_a", "stderr_a", "points", "ups", "forfeit_player"}
    assert _side_facts(now, made["sm"]) == [(0, s1, 2, 1.5, "", "", 4.0),
                                            (1, s2, 1, 1.0, "", "", -1.0),
                                            (2, s3, 0, 0.5, "c's words", "", -3.0)]
    assert _side_facts(now, made["forfeit"]) == [(0, k2, 0, None, "", "illegal", None),
                                                 (1, k1, 2, None, "b's words", "", None)]
    assert _side_facts(now, made["walkover"]) == [(0, s3, None, 0.0, "", "withdrawn", None),
                                                  (1, s1, None, 1.5, "", "", None),
                                                  (2, s2, None, 1.5, "", "", None)]
    assert _side_facts(now, made["many"][1]) == [(0, k2, 1, None, "", "", None),
                                                 (1, k1, 1, None, "", "", None)]
    assert now.get_model("matches", "MatchSide").objects.count() == 2 * 8 + 3 * 2

    _executor().migrate([COLUMNS])
    back = _executor().loader.project_state([COLUMNS]).apps.get_model("matches", "Match")
    after = {pk: back.objects.filter(pk=pk).values(*COLUMN_FIELDS).get() for pk in before}
    assert after == before
