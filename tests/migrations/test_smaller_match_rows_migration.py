"""Migration matches 0018 (issue 42, a smaller match row) on a populated database: an ended
match's lease token leaves its row (its newest attempt keeps it) and comes back from there;
the board losses' numbers, narrowed to small integers, are the same both ways; the attempt's
token stays unique without its pattern index. Rows are made through the historical models."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.apps.registry import Apps
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("matches", "0017_match_boards_computed"), ("ladder", "0009_strict_time")]
AFTER = [("matches", "0018_smaller_match_rows")]
LOSS_FIELDS = ("match_id", "version_id", "opponent_id", "side", "game", "deal", "swing", "kind",
               "step")


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


def _apps(targets: list[tuple[str, str]]) -> Apps:
    return _executor().loader.project_state(targets).apps


@pytest.fixture
def before(transactional_db: None) -> Iterator[Apps]:
    """The historical models just before 0018; the latest schema again afterwards, also when
    the test fails."""
    try:
        _executor().migrate(BEFORE)
        yield _apps(BEFORE)
    finally:
        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())


def _fill(apps: Apps) -> dict[str, Any]:
    User = apps.get_model("auth", "User")
    Bot = apps.get_model("bots", "Bot")
    BotProgram = apps.get_model("bots", "BotProgram")
    BotVersion = apps.get_model("bots", "BotVersion")
    Match = apps.get_model("matches", "Match")
    Attempt = apps.get_model("matches", "MatchAttempt")
    BoardLoss = apps.get_model("matches", "BoardLoss")
    author = User.objects.create(username="rows-author")
    program = BotProgram.objects.create(sha256="ef" * 32, content=b"print('hi')\n", size=12)
    one, two = (BotVersion.objects.create(
        bot=Bot.objects.create(owner=author, name=f"rows-{n}"), number=1, kind="py",
        program=program, filename="bot.py", size=12, status="active") for n in (1, 2))
    now = timezone.now()
    matches = {status: Match.objects.create(kind="ladder", seed="s", status=status,
                                            lease_token=f"{status}-lease")
               for status in ("finished", "failed", "running")}
    matches["queued"] = Match.objects.create(kind="ladder", seed="s", status="queued")
    for status, match in matches.items():
        if status == "queued":
            continue
        # An older attempt that lost its lease, then the one whose lease the match has.
        Attempt.objects.create(match=match, token=f"{status}-lost", started=now,
                               outcome="superseded")
        Attempt.objects.create(match=match, token=f"{status}-lease",
                               started=now + timedelta(seconds=5), outcome="finished")
    finished = matches["finished"]
    for side, (version, opponent) in (("A", (one, two)), ("B", (two, one))):
        BoardLoss.objects.create(match=finished, version=version, opponent=opponent,
                                 opponent_bot_id=opponent.bot_id, side=side, game=2, deal=17,
                                 swing=-31, kind="bid", step=143)
    return {status: match.pk for status, match in matches.items()}


def _leases(apps: Apps) -> dict[int, str]:
    return dict(apps.get_model("matches", "Match").objects.values_list("pk", "lease_token"))


def _losses(apps: Apps) -> list[tuple[Any, ...]]:
    return list(apps.get_model("matches", "BoardLoss").objects.order_by("side")
                .values_list(*LOSS_FIELDS))


def test_migration_0018_keeps_leases_and_board_losses_there_and_back(before: Apps) -> None:
    made = _fill(before)
    leases, losses = _leases(before), _losses(before)
    _executor().migrate(AFTER)
    after = _apps(AFTER)
    # An ended match holds no lease; an open one keeps its own.
    assert _leases(after) == {made["finished"]: "", made["failed"]: "",
                              made["running"]: "running-lease", made["queued"]: ""}
    assert _losses(after) == losses
    Attempt = after.get_model("matches", "MatchAttempt")
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(match_id=made["queued"], token="failed-lease",
                               started=timezone.now())
    # And back: each ended match has its newest attempt's token again.
    _executor().migrate(BEFORE)
    back = _apps(BEFORE)
    assert _leases(back) == leases
    assert _losses(back) == losses
