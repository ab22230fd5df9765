"""Ladder's migration 0006 on a populated database: matches finished before the tally table
existed are tallied from the columns that held their sides then (the migration keeps its
own copy of the rebuild at that schema), and the sides' migration after it keeps the same
results: the tallies equal a recount from today's rows. The rows are made through the
historical models, so this names the old columns (as migrations do)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from bots.models import Bot
from ladder import services
from ladder.models import Ladder
from matches.models import Match
from tests.tournaments.test_pair_tallies import _assert_equal, _kept, _recount, _sm_bots

BEFORE = [("ladder", "0005_board_indexes"), ("matches", "0012_match_times")]


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_tallies_of_a_populated_database(
        make_builtin: Callable[..., Any]) -> None:
    """Matches finished before the table existed: migrating to it tallies each ladder's rated
    results, from the matches, and nothing else."""
    kaiser = Ladder.objects.create(name="Old ladder", slug="old", games_per_match=4)
    sm = services.game_ladder_ensure("sergeant-major")
    k = [make_builtin(f"k{i}", own=True).pk for i in range(3)]
    _sm_bots(3)
    s = [bot.versions.get().pk for bot in Bot.objects.filter(game="sergeant-major")]
    made = [((k[0], k[1]), {"score": 0.75}), ((k[1], k[0]), {"score": 1.0}),
            ((k[2], k[0]), {"score": 0.0}), ((k[1], k[2]), {"score": 0.5, "rated": False}),
            ((k[1], k[2]), {"score": None, "status": Match.Status.QUEUED}),
            ((s[0], s[1], s[2]), {"points": {"A": 2.5, "B": 0.5, "C": 0.0}}),
            ((s[2], s[1], s[0]), {"points": {"A": 0.0, "B": 0.0, "C": 3.0}})]
    executor = _executor()
    try:
        executor.migrate(BEFORE)
        then = _executor().loader.project_state(BEFORE).apps.get_model("matches", "Match")
        for versions, fields in made:
            three = len(versions) == 3
            then.objects.create(
                kind=Match.Kind.LADDER, ladder_id=sm.pk if three else kaiser.pk, game=(
                    "sergeant-major" if three else "kaiser"), version_a_id=versions[0],
                version_b_id=versions[1], version_c_id=versions[2] if three else None,
                seed="s", games_per_match=3 if three else 4,
                **{"status": Match.Status.FINISHED, "rated": True, "score": 0.5, **fields})
    finally:
        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert len(_kept(kaiser)) == 2 and len(_kept(sm)) == 3
    for ladder in (kaiser, sm):
        _assert_equal(_kept(ladder), _recount(ladder))
