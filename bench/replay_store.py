#!/usr/bin/env python
"""The database's size with the replays in it and without (issue 21): what moving replays to
the replay store (matches.replay_store) takes off the database, its backups and its restores.

A few real matches are played (builtin:greedy against builtin:random, the ladder's 2 games a
match) for real replays; N finished matches are then written holding those replays in their
rows (replay_gz), as a site from before the store had them. The database is measured, the
replays are moved by the migration command's service (replays_to_store: write, read back
against the hash, record key and hash, clear the row's copy), the table is compacted (VACUUM
FULL on PostgreSQL, VACUUM on SQLite; without it the freed space waits for reuse), and the
database is measured again. Also printed: the store's size, the move's rate, and the time to
read one replay from the row and from the store.

Uses a fresh test database (SQLite unless DATABASE_URL says otherwise) and a scratch store
folder (KAISER_REPLAY_DIR; KAISER_REPLAY_STORE=s3 with its settings measures a bucket).
Usage: .venv/bin/python bench/replay_store.py [--matches 10000] [--played 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
MB = 1024 * 1024


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


def _played(count: int) -> list[Any]:
    """`count` finished ladder matches, played here; their rows as the model for the rest."""
    from django.contrib.auth.models import User

    from bots.models import Bot
    from bots.services import bot_builtin_add
    from ladder.models import Ladder
    from matches import services
    from matches.models import Match

    ladder = Ladder.objects.create(name="Bench", slug="bench", games_per_match=2)
    sides = [bot_builtin_add(bot=Bot.objects.create(
        owner=User.objects.create_user(f"owner-{name}"), name=f"bench-{name}"),
        spec=f"builtin:{name}")  # named apart from the house bots (ladder 0007)
        for name in ("greedy", "random")]
    played = []
    for n in range(count):
        a, b = sides if n % 2 == 0 else sides[::-1]
        match = services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                      conditions=ladder, ladder=ladder, rated=True)
        assert services.match_play(match_id=match.pk, worker="bench") == "finished"
        played.append(Match.objects.get(pk=match.pk))
    return played


def _fill(model: list[Any], count: int) -> None:
    """`count` more finished matches holding the model matches' replays in their rows."""
    from matches.models import Match, MatchSide

    blobs = [m.replay_stored() for m in model]
    first = model[0]
    for start in range(0, count, 2000):
        made = Match.objects.bulk_create(Match(
            kind=first.kind, ladder_id=first.ladder_id, rated=False, seed=str(n),
            status=Match.Status.FINISHED, score=model[n % len(model)].score,
            replay_gz=blobs[n % len(blobs)], replay_size=model[n % len(model)].replay_size,
            stats=model[n % len(model)].stats, finished=first.finished)
            for n in range(start, min(count, start + 2000)))
        MatchSide.objects.bulk_create(
            MatchSide(match=match, order=side.order, version_id=side.version_id,
                      games=side.games)
            for n, match in enumerate(made, start=start)
            for side in model[n % len(model)].side_list)


def _sizes(connection: Any) -> tuple[int, int]:
    """(the database's bytes, the match table's bytes with its indexes and TOAST), compacted."""
    from matches.models import Match

    table = Match._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f'VACUUM FULL ANALYZE "{table}"')
            cursor.execute("SELECT pg_database_size(current_database()), "
                           "pg_total_relation_size(%s)", [table])
            database, rows = cursor.fetchone()
            return int(database), int(rows)
        cursor.execute("VACUUM")
        cursor.execute("PRAGMA page_count")
        pages = cursor.fetchone()[0]
        cursor.execute("PRAGMA page_size")
        database = pages * cursor.fetchone()[0]
        try:  # the dbstat table, where SQLite was built with it
            cursor.execute("SELECT SUM(pgsize) FROM dbstat WHERE name IN (SELECT name FROM "
                           "sqlite_master WHERE tbl_name = %s)", [table])
            rows = cursor.fetchone()[0] or 0
        except Exception:  # noqa: BLE001 - no dbstat: the whole file stands for the table
            rows = database
        return int(database), int(rows)


def _read_ms(ids: list[int]) -> float:
    """Median milliseconds to load one match's replay (the row, then its bytes, decompressed)."""
    from matches.models import REPLAY_FIELDS, Match

    times = []
    for pk in ids:
        started = time.perf_counter()
        Match.objects.only("pk", *REPLAY_FIELDS).get(pk=pk).replay_text()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _store_bytes() -> tuple[int, int, int | None]:
    """Objects, their bytes, and (a folder store) the disk blocks they take."""
    from matches.replay_store import replay_storage, storage_walk

    storage = replay_storage()
    names = list(storage_walk(storage))
    blocks = None
    if hasattr(storage, "path"):  # FileSystemStorage: a small file takes a whole block
        blocks = sum(os.stat(storage.path(name)).st_blocks * 512 for name in names)
    return len(names), sum(storage.size(name) for name in names), blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10000)
    parser.add_argument("--played", type=int, default=20, help="real matches played first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kaiser-replay-bench-") as scratch:
        connection = _setup(Path(scratch) / "replays")
        from matches.models import Match
        from matches.services import replays_to_store

        print(f"database: {connection.vendor}; {args.matches} finished matches, their replays "
              f"taken from {args.played} played (greedy vs random, 2 games a match)")
        model = _played(args.played)
        _fill(model, args.matches - len(model))
        ids = list(Match.objects.filter(replay_gz__isnull=False).order_by("pk")
                   .values_list("pk", flat=True)[:200])
        before, before_rows = _sizes(connection)
        in_row_ms = _read_ms(ids)
        started = time.perf_counter()
        moved = replays_to_store(batch=500)
        seconds = time.perf_counter() - started
        after, after_rows = _sizes(connection)
        objects, stored, blocks = _store_bytes()
        in_store_ms = _read_ms(ids)
        per = args.matches
        print(f"with the replays in it:    database {before / MB:8.1f} MB, match table "
              f"{before_rows / MB:8.1f} MB ({before_rows / per:,.0f} bytes a match)")
        print(f"without them (moved out):  database {after / MB:8.1f} MB, match table "
              f"{after_rows / MB:8.1f} MB ({after_rows / per:,.0f} bytes a match)")
        disk = f"; {blocks / MB:.1f} MB of disk blocks" if blocks is not None else ""
        print(f"the replay store:          {objects} objects, {stored / MB:.1f} MB "
              f"({stored / max(objects, 1):,.0f} bytes a replay{disk})")
        print(f"a million matches: match table {before_rows / per * 1e6 / 2**30:.1f} GiB with "
              f"the replays, {after_rows / per * 1e6 / 2**30:.2f} GiB without")
        print(f"replays_to_store: {moved} moved in {seconds:.1f} s "
              f"({moved / max(seconds, 1e-9):.0f} a second)")
        print(f"one replay read: {in_row_ms:.2f} ms from its row, {in_store_ms:.2f} ms from "
              f"the store (median of {len(ids)})")
        connection.creation.destroy_test_db(connection.settings_dict["NAME"], verbosity=0)


if __name__ == "__main__":
    main()
