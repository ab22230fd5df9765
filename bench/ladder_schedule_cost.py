#!/usr/bin/env python
"""What one fill of a large ladder costs now that it counts each pair's meetings.

The ladder scheduler runs on every beat tick and after every finished ladder match; it reads
the entrants, the open matches, and (for the rule against churn) the rated matches of each
entrant drawn first against each opponent (ladder_services._meetings_on: two grouped reads of that
bot's matches). This makes `--bots` built-in bots on a ladder
with `--matches` finished rated matches between random pairs (rows inserted directly, no
replays), then times `--fills` fills that each create one match (the match is deleted again
between fills), with the meetings read and, alternately, without them (as before the rule).

Uses a database of its own, made fresh: PostgreSQL `kaiser_bench_schedule` next to
DATABASE_URL when that is PostgreSQL, else var/bench_schedule.sqlite3. Usage:
    .venv/bin/python bench/ladder_schedule_cost.py [--bots 100] [--matches 100000] [--fills 20]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DB_NAME = "kaiser_bench_schedule"


def _bench_database() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        base, _, _ = url.rpartition("/")
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {DB_NAME}")
        return f"{base}/{DB_NAME}"
    path = ROOT / "var" / "bench_schedule.sqlite3"
    path.parent.mkdir(exist_ok=True)  # a fresh clone has no var/
    path.parent.mkdir(exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"


def _populate(bots: int, matches: int) -> object:
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from bots.models import Bot, BotVersion
    from ladder.models import Ladder, LadderEntry
    from matches.models import Match, MatchSide

    call_command("migrate", verbosity=0)
    versions = [BotVersion.objects.create(
        # an owner a bot: the ladder never pairs two bots of one owner
        bot=Bot.objects.create(owner=User.objects.create_user(username=f"bench-{i}"),
                               name=f"b{i}"), number=1, kind="builtin",
        builtin="builtin:random", status=BotVersion.Status.ACTIVE) for i in range(bots)]
    ladder = Ladder.objects.create(name="bench", slug="bench", queue_depth=1)
    LadderEntry.objects.bulk_create(LadderEntry(ladder=ladder, version=v) for v in versions)
    rng, now = random.Random(1), timezone.now()
    rows = Match.objects.bulk_create(
        (Match(kind="ladder", ladder=ladder, seed="x", status="finished", score=rng.random(),
               finished=now, rated=True) for _ in range(matches)), batch_size=5000)
    MatchSide.objects.bulk_create(
        (MatchSide(match=match, order=order, version=version, games=1)
         for match in rows for order, version in enumerate(rng.sample(versions, 2))),
        batch_size=5000)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # as autovacuum would have by now: real plans
            cursor.execute("ANALYZE")
    return ladder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--fills", type=int, default=20)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = _bench_database()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
    import django

    django.setup()
    from django.db import connection

    from ladder import services as ladder_services
    from matches import services as match_services
    from matches.models import Match

    began = time.perf_counter()
    ladder = _populate(args.bots, args.matches)
    print(f"{connection.vendor}: {args.bots} bots, {args.matches} finished rated matches "
          f"(made in {time.perf_counter() - began:.0f} s)")
    match_services.matches_dispatch = lambda: []  # no broker here: nothing is sent
    real = ladder_services._meetings_on
    without = {"without the meetings": lambda ladder: (lambda version_id: {}),
               "with the meetings": real}
    times: dict[str, list[float]] = {label: [] for label in without}
    for seed in range(args.fills + 2):  # the first two warm the caches and are not counted
        for label, reader in without.items():
            ladder_services._meetings_on = reader  # type: ignore[assignment]
            began = time.perf_counter()
            made = ladder_services.ladder_schedule(ladder_id=ladder.pk,  # type: ignore[attr-defined]
                                            rng=random.Random(seed), sync=False)
            if seed >= 2:
                times[label].append((time.perf_counter() - began) * 1000)
            assert made == 1, made
            Match.objects.filter(status="queued").delete()
    for label, values in times.items():
        print(f"one ladder fill, {label:21}: median {statistics.median(values):6.1f} ms, "
              f"max {max(values):6.1f} ms ({args.fills} fills)")

if __name__ == "__main__":
    main()
