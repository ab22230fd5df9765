#!/usr/bin/env python
"""Faults, over and over, while a batch of matches is played; then count what was lost.

Two Celery workers play a fixed batch of rated matches (half of them with a slow sandboxed bot,
so faults land in the middle of matches) on a private redis-server (never the shared one),
with a sweeper playing celery beat's part (matches_requeue_stale every second). Every
`--period` seconds one fault, in turn:

  kill      SIGKILL a worker and its pool children (a replacement starts at once)
  redis     stop the redis-server (its queue is lost: no persistence) and start it again
  database  cut every database connection of the workers (pg_terminate_backend: what a
            PostgreSQL restart looks like to a client), PostgreSQL only
  store     cut the connection of the next worker that stores a result, at that moment
            (a trigger that makes the storing backend terminate itself), PostgreSQL only

At the end: every match finished exactly once (one stored attempt, two rating changes), the
Elo replayed from the history equals the stored Elo, no bot process is left. Prints the
faults, the queue over time, the attempts lost and retried, and the recovery time.

Uses a database of its own, made fresh: PostgreSQL `kaiser_faults` next to DATABASE_URL when
that is PostgreSQL, else var/faults.sqlite3 (then only kill and redis). Usage:
    .venv/bin/python bench/fault_recovery.py [--matches 40] [--period 8] [--timeout 900]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "hardening")]
LEASE_SECONDS = 6


def _database(name: str) -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        base, _, _ = url.rpartition("/")
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
        return f"{base}/{name}"
    path = ROOT / "var" / f"{name.removeprefix('kaiser_')}.sqlite3"
    path.parent.mkdir(exist_ok=True)  # a fresh clone has no var/
    path.parent.mkdir(exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"


def _setup(matches: int, marker: str) -> tuple[object, list[object]]:
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from hardening_support import queue_matches, slow_bot_zip

    from bots.models import Bot, BotProgram, BotVersion
    from bots.services import bot_builtin_add
    from ladder.models import Ladder

    call_command("migrate", verbosity=0)
    Ladder.objects.update(active=False)
    user = User.objects.create_user(username="faults")
    content = slow_bot_zip(marker, pause=0.01)
    import hashlib

    program = BotProgram.objects.create(sha256=hashlib.sha256(content).hexdigest(),
                                        content=content, size=len(content))
    slow = [BotVersion.objects.create(
        # an owner a bot: the ladder never pairs two bots of one owner
        bot=Bot.objects.create(owner=User.objects.create_user(username=f"{user}-slow{i}"),
                               name=f"slow{i}"), number=1, kind="zip",
        program=program, filename="bot.zip", size=len(content), status="active")
        for i in range(3)]
    fast = [bot_builtin_add(bot=Bot.objects.create(
                owner=User.objects.create_user(username=f"{user}-house{i}"), name=f"house{i}"),
                                    spec="builtin:greedy" if i % 2 else "builtin:random")
            for i in range(5)]
    ladder = Ladder.objects.create(name="faults", slug="faults", active=False,
                                   games_per_match=2)
    players = slow + fast
    pairs = [(players[i % len(players)], fast[(i * 3 + 1) % len(fast)]) for i in range(matches)]
    pairs = [(a, b) for a, b in pairs if a.bot_id != b.bot_id]
    return ladder, queue_matches(ladder, pairs)


class Faults:
    def __init__(self, processes: object, port: int, redis: object) -> None:
        self.processes, self.port, self.redis = processes, port, redis
        self.workers = [processes.worker(env=self.broker()) for _ in range(2)]  # type: ignore
        self.log: list[tuple[float, str]] = []

    def broker(self) -> dict[str, str]:
        return {"REDIS_URL": f"redis://127.0.0.1:{self.port}/0"}

    def kill(self) -> str:
        victim = self.workers.pop(0)
        victim.kill_group()
        self.workers.append(self.processes.worker(env=self.broker()))  # type: ignore
        return "SIGKILL worker (and pool children); a new one started"

    def restart_redis(self) -> str:
        self.redis.stop()  # type: ignore[attr-defined]
        time.sleep(1.5)
        self.redis = self.processes.redis(self.port)  # type: ignore[attr-defined]
        return "redis-server stopped 1.5 s (queue lost) and started again"

    def cut_database(self) -> str:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
            count = cursor.fetchone()[0]
        return f"pg_terminate_backend on {count} worker/sweeper connections"

    def cut_next_store(self) -> str:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("DROP SEQUENCE IF EXISTS kaiser_store_fault")
            cursor.execute("CREATE SEQUENCE kaiser_store_fault")
            cursor.execute(
                "CREATE OR REPLACE FUNCTION kaiser_store_fault() RETURNS trigger AS $$ BEGIN "
                "IF nextval('kaiser_store_fault') = 1 THEN "
                "PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END IF; "
                "RETURN NEW; END $$ LANGUAGE plpgsql")
            cursor.execute("DROP TRIGGER IF EXISTS kaiser_store_fault ON tournaments_match")
            cursor.execute(
                "CREATE TRIGGER kaiser_store_fault BEFORE UPDATE ON tournaments_match "
                "FOR EACH ROW WHEN (NEW.status = 'finished') "
                "EXECUTE FUNCTION kaiser_store_fault()")
        return "the next result store has its connection cut"

    def remove_store_trigger(self) -> None:
        from django.db import connection

        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("DROP TRIGGER IF EXISTS kaiser_store_fault ON tournaments_match")


def _counts(matches: list[object]) -> Counter[str]:
    from matches.models import Match

    ids = [m.pk for m in matches]  # type: ignore[attr-defined]
    return Counter(Match.objects.filter(pk__in=ids).values_list("status", flat=True))


def _run(matches: list[object], faults: Faults, period: float, timeout: float,
         kinds: list[str]) -> tuple[list[tuple[float, Counter[str]]], float]:
    actions = {"kill": faults.kill, "redis": faults.restart_redis,
               "database": faults.cut_database, "store": faults.cut_next_store}
    rotation = itertools.cycle(kinds)
    began = time.monotonic()
    next_fault, last_fault, samples = began + period, began, []
    while True:
        now = time.monotonic()
        counts = _counts(matches)
        samples.append((now - began, counts))
        if counts["finished"] + counts["failed"] + counts["void"] == len(matches):
            return samples, now - last_fault
        if now - began > timeout:
            raise SystemExit(f"not done after {timeout:.0f} s: {dict(counts)}")
        if now >= next_fault and counts["queued"] + counts["running"] > 2:
            kind = next(rotation)
            faults.log.append((now - began, actions[kind]()))
            last_fault, next_fault = time.monotonic(), time.monotonic() + period
        time.sleep(1)


def _verdict(ladder: object, matches: list[object], marker: str) -> list[str]:
    from hardening_support import assert_each_match_counted_once, wait_until_gone

    from matches.models import MatchAttempt

    problems = []
    try:
        assert_each_match_counted_once(ladder, matches)  # type: ignore[arg-type]
    except AssertionError as error:
        problems.append(f"counted wrongly: {error}")
    if left := wait_until_gone(marker):
        problems.append(f"{len(left)} bot processes left: {left[:3]}")
    outcomes = Counter(MatchAttempt.objects.values_list("outcome", flat=True))
    print(f"  attempts: {dict(outcomes)}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--period", type=float, default=8.0, help="seconds between faults")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    marker = f"kaiser-fault-bench-{uuid.uuid4().hex[:10]}"
    queue = f"faults-{uuid.uuid4().hex[:8]}"
    shared = {"KAISER_MATCH_QUEUE": queue, "KAISER_MATCH_LEASE_SECONDS": str(LEASE_SECONDS),
              "KAISER_DISPATCH_DEPTH": "4", "KAISER_BOT_IN_FLIGHT": "2",
              "KAISER_DISPATCH_LOST_SECONDS": "20", "KAISER_MATCH_MAX_ATTEMPTS": "20",
              "DATABASE_URL": _database("kaiser_faults"),
              "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1"}
    program_dir = tempfile.mkdtemp(prefix="kaiser-fault-programs-")
    os.chmod(program_dir, 0o755)
    shared["KAISER_PROGRAM_DIR"] = program_dir
    os.environ.update(shared)
    os.environ["KAISER_DISPATCH_DEPTH"] = "0"  # this process never dispatches
    import django

    django.setup()
    from hardening_support import Processes, free_port

    ladder, matches = _setup(args.matches, marker)
    from django.db import connection

    kinds = ["kill", "redis"] + (["database", "store"] if connection.vendor == "postgresql"
                                  else [])
    processes = Processes(folder=Path(tempfile.mkdtemp(prefix="kaiser-faults-")),
                          env={**os.environ, **shared}, queue=queue)
    port = free_port()
    try:
        redis = processes.redis(port)
        faults = Faults(processes, port, redis)
        processes.sweeper(period=1.0, env=faults.broker())
        began = time.monotonic()
        samples, recovery = _run(matches, faults, args.period, args.timeout, kinds)
        wall = time.monotonic() - began
    finally:
        processes.stop_all()
    faults.remove_store_trigger()
    print(f"fault recovery: {len(matches)} rated matches (a slow sandboxed bot in "
          f"{sum(1 for m in matches if m.side_list[0].version.kind == 'zip')}), two workers, "
          f"{connection.vendor} + private redis-server, lease {LEASE_SECONDS} s")
    print(f"  faults ({len(faults.log)}), every {args.period:.0f} s while matches remained:")
    for at, what in faults.log:
        print(f"    {at:6.1f} s  {what}")
    print("  queue over time (s: queued/running/finished):")
    step = max(1, len(samples) // 20)
    print("    " + "  ".join(f"{t:.0f}:{c['queued']}/{c['running']}/{c['finished']}"
                             for t, c in samples[::step]))
    print(f"  all done in {wall:.1f} s; {recovery:.1f} s after the last fault")
    problems = _verdict(ladder, matches, marker)
    print("  lost or doubled: " + ("nothing" if not problems else "; ".join(problems)))
    print(f"  logs: {processes.folder}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
