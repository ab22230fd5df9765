#!/usr/bin/env python
"""What keeping each decision's times costs (issue 41: "the database may not grow by more
than 1 KB a match"): the match table's bytes a match with the times' key and hash in its rows
and without them, and the times' object in the replay store beside the replay's.

A few real matches are played in the sandbox (two uploaded example bots, greedy.zip against
random.zip, the ladder's 2 games a match), so their times are real (matches.times_store);
N finished matches are then written holding those matches' replay and times keys, as a site
that has played N matches since the times were kept. The table is compacted (VACUUM FULL on
PostgreSQL, VACUUM on SQLite) and measured, the times' columns are emptied (a site that keeps
no times), and it is compacted and measured again.

Uses a fresh test database (SQLite unless DATABASE_URL says otherwise) and a scratch store
folder. Usage: .venv/bin/python bench/fairplay_storage.py [--matches 10000] [--played 4]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
EXAMPLES = ROOT / "bots" / "examples"
SIDES = ("greedy.zip", "random.zip")


def _setup(store: Path) -> Any:
    os.environ.setdefault("KAISER_REPLAY_DIR", str(store))
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.KAISER_DISPATCH_DEPTH = 0  # nothing is sent to a broker: this process plays
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    return connection


def _version(name: str) -> Any:
    from django.contrib.auth.models import User

    from bots.models import Bot, BotProgram, BotVersion

    content = (EXAMPLES / name).read_bytes()
    program, _ = BotProgram.objects.get_or_create(
        sha256=hashlib.sha256(content).hexdigest(),
        defaults={"content": content, "size": len(content)})
    bot = Bot.objects.create(owner=User.objects.create_user(f"owner-{name}"),
                             name=f"bench-{name.partition('.')[0]}")
    return BotVersion.objects.create(bot=bot, number=1, kind=BotVersion.Kind.ZIP,
                                     program=program, filename=name, size=len(content),
                                     status=BotVersion.Status.ACTIVE)


def _played(count: int) -> list[Any]:
    """`count` finished ladder matches of the two example programs, played here."""
    from ladder.models import Ladder
    from matches import services
    from matches.models import Match

    ladder = Ladder.objects.create(name="Bench", slug="bench", games_per_match=2)
    sides = [_version(name) for name in SIDES]
    played = []
    for n in range(count):
        a, b = sides if n % 2 == 0 else sides[::-1]
        match = services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                      conditions=ladder, ladder=ladder, rated=True)
        assert services.match_play(match_id=match.pk, worker="bench") == "finished"
        played.append(Match.objects.get(pk=match.pk))
    assert all(m.times_key for m in played), "a match kept no times"
    return played


def _fill(model: list[Any], count: int) -> None:
    """`count` more finished matches naming the model matches' replays and times."""
    from matches.models import Match, MatchSide

    first = model[0]
    for start in range(0, count, 2000):
        made = Match.objects.bulk_create(Match(
            kind=first.kind, ladder_id=first.ladder_id, rated=False, seed=str(n),
            status=Match.Status.FINISHED, score=model[n % len(model)].score,
            replay_key=model[n % len(model)].replay_key,
            replay_sha256=model[n % len(model)].replay_sha256,
            times_key=model[n % len(model)].times_key,
            times_sha256=model[n % len(model)].times_sha256,
            replay_size=model[n % len(model)].replay_size,
            stats=model[n % len(model)].stats, finished=first.finished)
            for n in range(start, min(count, start + 2000)))
        MatchSide.objects.bulk_create(
            MatchSide(match=match, order=side.order, version_id=side.version_id,
                      games=side.games)
            for n, match in enumerate(made, start=start)
            for side in model[n % len(model)].side_list)


def _table_bytes(connection: Any) -> int:
    """The match table's bytes with its indexes and TOAST, compacted."""
    from matches.models import Match

    table = Match._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f'VACUUM FULL ANALYZE "{table}"')
            cursor.execute("SELECT pg_total_relation_size(%s)", [table])
            return int(cursor.fetchone()[0])
        cursor.execute("VACUUM")
        try:  # the dbstat table, where SQLite was built with it
            cursor.execute("SELECT SUM(pgsize) FROM dbstat WHERE name IN (SELECT name FROM "
                           "sqlite_master WHERE tbl_name = %s)", [table])
            return int(cursor.fetchone()[0] or 0)
        except Exception:  # noqa: BLE001 - no dbstat: the whole file stands for the table
            cursor.execute("PRAGMA page_count")
            pages = cursor.fetchone()[0]
            cursor.execute("PRAGMA page_size")
            return int(pages * cursor.fetchone()[0])


def _column_bytes(connection: Any) -> float | None:
    """The mean bytes of the times' key and hash in a row (PostgreSQL's own count)."""
    from matches.models import Match

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT AVG(pg_column_size(times_key) + pg_column_size(times_sha256)) "
                       f'FROM "{Match._meta.db_table}"')
        return float(cursor.fetchone()[0])


def _object_bytes(keys: list[str]) -> list[int]:
    from matches.replay_store import replay_storage

    storage = replay_storage()
    return [storage.size(key) for key in keys]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10000)
    parser.add_argument("--played", type=int, default=4, help="real matches played first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kaiser-fairplay-bench-") as scratch:
        connection = _setup(Path(scratch) / "replays")
        from matches.models import Match
        from matches.times_store import match_times

        print(f"database: {connection.vendor}; {args.matches} finished matches, their times "
              f"taken from {args.played} played ({' vs '.join(SIDES)}, 2 games a match)")
        model = _played(args.played)
        _fill(model, args.matches - len(model))
        decisions = statistics.mean(sum(len(side.wall_ms) for side in
                                        (match_times(m) or {}).values()) for m in model)
        per = args.matches
        columns = _column_bytes(connection)
        with_times = _table_bytes(connection)
        Match.objects.update(times_key="", times_sha256="")
        without = _table_bytes(connection)
        growth = (with_times - without) / per
        print(f"match table with the times' key and hash: {with_times / per:,.0f} bytes a match")
        print(f"match table without them:                 {without / per:,.0f} bytes a match")
        print(f"the table grows by {growth:,.0f} bytes a match (its rows pack into 8 KB "
              "pages, so a few bytes more a row may take no more pages)")
        # The growth is what the rows hold for the times, at most: the columns' own bytes.
        most = max(growth, columns if columns is not None else growth)
        if columns is not None:
            print(f"the two columns hold {columns:,.0f} bytes a match (pg_column_size, mean)")
        print(f"the database grows by at most {most:,.0f} bytes a match for the times "
              f"(limit 1,024): {'within' if most <= 1024 else 'OVER'}")
        times = _object_bytes([m.times_key for m in model])
        replays = _object_bytes([m.replay_key for m in model])
        print(f"the replay store: the times {statistics.mean(times):,.0f} bytes a match "
              f"({statistics.mean(times) / decisions:.1f} bytes a decision, {decisions:.0f} "
              f"decisions timed a match), the replay {statistics.mean(replays):,.0f}")
        connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)


if __name__ == "__main__":
    main()
