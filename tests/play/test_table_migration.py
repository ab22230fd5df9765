"""The play app's model was renamed from Game to Table (play/migrations/0004_table: one class
called Game, the engine's): on a database with tables, seats and moves, the migration keeps
every row and link, and going back undoes it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = ("play", "0003_game_choices_from_registry")
AFTER = ("play", "0004_table")


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


@pytest.fixture
def before_rename(transactional_db: None) -> Iterator[None]:
    """The database with play just before the rename; migrated to the latest afterwards."""
    try:
        _executor().migrate([BEFORE])
        yield
    finally:
        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_the_rename_keeps_every_table_seat_and_move(before_rename: None) -> None:
    old = _executor().loader.project_state([BEFORE]).apps
    user = old.get_model("auth", "User").objects.create(username="person")
    game = old.get_model("play", "Game").objects.create(
        owner=user, seed="s", status="finished", move_seconds=60, seq=3, winner=0,
        score=[30, 12], view={"over": True})
    seats = [old.get_model("play", "Seat").objects.create(game=game, seat=n,
                                                          builtin="builtin:greedy")
             for n in (1, 2, 3)]
    moves = [old.get_model("play", "Move").objects.create(game=game, seq=n, action=f"{n}H")
             for n in (1, 2, 3)]

    _executor().migrate([AFTER])
    new = _executor().loader.project_state([AFTER]).apps
    table = new.get_model("play", "Table").objects.get(pk=game.pk)
    assert (table.owner_id, table.status, table.seq, table.winner, table.score, table.view) == (
        user.pk, "finished", 3, 0, [30, 12], {"over": True})
    assert [(s.pk, s.seat) for s in table.seats.order_by("seat")] == [
        (s.pk, s.seat) for s in seats]
    assert [(m.pk, m.seq, m.action) for m in table.moves.order_by("seq")] == [
        (m.pk, m.seq, m.action) for m in moves]
    assert table._meta.db_table == "play_table"

    _executor().migrate([BEFORE])  # and back
    back = _executor().loader.project_state([BEFORE]).apps
    assert back.get_model("play", "Game").objects.get(pk=game.pk).moves.count() == 3
