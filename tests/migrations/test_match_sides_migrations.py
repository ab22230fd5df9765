"""The migrations of a match's sides on real rows: 0009 made `MatchSide` rows for every match
from the columns that held its players (issue 32), 0013 to 0015 dropped those columns and keep every
fact both ways (issue 42). These tests fill databases at old schemas, through their
historical models, so they name the old columns (as migrations do: the one place that may)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from matches.models import Match, MatchSide

BEFORE = ("matches", "0008_match_outcome")
AFTER = ("matches", "0009_matchside")
COLUMNS = ("matches", "0012_match_times")
ROWS_ONLY = ("matches", "0015_match_side_columns_drop")


def _rows(match: Match) -> list[tuple[Any, ...]]:
    return list(MatchSide.objects.filter(match=match).order_by("order").values_list(
        "order", "version_id", "games", "points", "stderr", "fault"))


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


# --- Migrations 0013 to 0015: the sides' rows only, there and back ------------------------


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


def test_migrations_0013_to_0015_keep_every_sides_facts_there_and_back(with_columns: Apps) -> None:
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
