#!/usr/bin/env python
"""End-to-end ladder throughput with one worker, next to the engine's own rate.

Two trivial sandboxed bots (bots/examples/minimal_bot.py) on a ladder of their own:

1. the engine alone: the same matches played in this process through the same glue the worker
   uses (bots.runner + engine.kaiser.match.run_match, in the bubblewrap sandbox), back to back;
2. the site: one Celery worker (-P solo) on the configured broker, the ladder scheduler
   feeding it, each match stored (gzip replay) and rated in its finishing transaction.
   Timed from the first scheduled match to the N-th rated one.

The overhead is what the site costs on top of the engine: 1 - site rate / engine rate.
Target: under 25%.

Uses a database of its own, made fresh: PostgreSQL `kaiser_bench` next to DATABASE_URL when
that is PostgreSQL, else var/bench.sqlite3. Usage:
    .venv/bin/python bench/ladder_throughput.py [--matches 60] [--games 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BOT = ROOT / "bots" / "examples" / "minimal_bot.py"


def _bench_database() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        base, _, _ = url.rpartition("/")
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS kaiser_bench WITH (FORCE)")
            conn.execute("CREATE DATABASE kaiser_bench")
        return f"{base}/kaiser_bench"
    path = ROOT / "var" / "bench.sqlite3"
    path.parent.mkdir(exist_ok=True)  # a fresh clone has no var/
    path.parent.mkdir(exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"


def _setup(games: int) -> tuple[object, object, object]:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from bots.models import Bot, BotProgram, BotVersion
    from ladder.models import Ladder

    call_command("migrate", verbosity=0)
    user = User.objects.create_user(username="bench")
    source = BOT.read_bytes()
    import hashlib

    program = BotProgram.objects.create(sha256=hashlib.sha256(source).hexdigest(),
                                        content=source, size=len(source))
    versions = []
    for name in ("trivial-a", "trivial-b"):
        # an owner a bot: the ladder never pairs two bots of one owner
        bot = Bot.objects.create(owner=User.objects.create_user(username=f"{user}-{name}"),
                                 name=name)
        versions.append(BotVersion.objects.create(
            bot=bot, number=1, kind="py", program=program, filename="bot.py",
            size=len(source), status=BotVersion.Status.ACTIVE))
    Ladder.objects.filter(slug="main").update(active=False)
    ladder = Ladder.objects.create(name="bench", slug="bench", games_per_match=games,
                                   queue_depth=3)
    return ladder, versions[0], versions[1]


def _engine_rate(a: object, b: object, ladder: object, matches: int) -> float:
    from matches.models import Match, MatchSide
    from matches.runner import match_play_engine

    began = time.monotonic()
    for i in range(matches):
        match = Match(seed=f"engine-{i}", rules=ladder.rules,
                      games_per_match=ladder.games_per_match, move_ms=ladder.move_ms,
                      bank_ms=ladder.bank_ms, startup_ms=ladder.startup_ms)
        # Unsaved: its sides given, as the runner reads them (Match.side_list).
        match.side_list = [MatchSide(order=order, version=version)
                           for order, version in enumerate((a, b))]
        played = match_play_engine(match=match)
        assert played.replay["result"]["forfeit"] is None, played.replay["result"]
    return matches / (time.monotonic() - began)


def _start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "kaiser_site", "worker", "-P", "solo",
               "-Q", env["KAISER_MATCH_QUEUE"], "-n", f"{env['KAISER_MATCH_QUEUE']}@%h",
               "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "WARNING"]
    log.parent.mkdir(exist_ok=True)  # a fresh clone has no var/
    with log.open("wb") as sink:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    return proc


def _site_rate(ladder: object, matches: int, env: dict[str, str]) -> dict[str, float]:
    from ladder import services
    from ladder.models import Ladder
    from matches.models import Match

    log = ROOT / "var" / "bench-worker.log"
    worker = _start_worker(env, log)
    try:
        time.sleep(4)  # the worker's start-up is not part of the rate
        rated = Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED,
                                     rating_changes__isnull=False).distinct()
        began = time.monotonic()
        services.ladder_schedule(ladder_id=ladder.pk)
        while rated.count() < matches:
            if worker.poll() is not None:
                raise SystemExit(f"the worker exited:\n{log.read_text()[-2000:]}")
            if time.monotonic() - began > 600:
                raise SystemExit("the worker took more than 10 minutes")
            time.sleep(0.5)  # a light poll: this process shares the machine with the worker
        Ladder.objects.filter(pk=ladder.pk).update(active=False)
        # Wall time from the database's own clock: first match queued to the N-th rated.
        done = Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED
                                    ).order_by("finished")[:matches]
        first = Match.objects.filter(ladder=ladder).order_by("created").first()
        wall = (list(done)[-1].finished - first.created).total_seconds()
        play_ms = sum(m.play_ms or 0 for m in done)
        return {"rate": matches / wall, "wall": wall, "engine_share": play_ms / 1000 / wall,
                "overhead_ms": (wall * 1000 - play_ms) / matches}
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--games", type=int, default=2, help="games per match (even)")
    args = parser.parse_args()
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    os.environ.update({"DATABASE_URL": _bench_database(), "KAISER_MATCH_QUEUE": queue,
                       "DJANGO_SETTINGS_MODULE": "kaiser_site.settings"})
    ladder, a, b = _setup(args.games)
    _engine_rate(a, b, ladder, 2)  # warm up: unpack the program, load the modules
    # The machine is shared: measure the engine before and after the site and take the mean.
    engine_before = _engine_rate(a, b, ladder, args.matches // 2)
    site = _site_rate(ladder, args.matches, dict(os.environ))
    engine_after = _engine_rate(a, b, ladder, args.matches // 2)
    engine = (engine_before + engine_after) / 2
    overhead = 1 - site["rate"] / engine
    broker = "Redis" if os.environ.get("REDIS_URL") else "filesystem broker"
    database = os.environ["DATABASE_URL"].split(":")[0]
    print(f"ladder throughput: {args.matches} matches of {args.games} games, two trivial "
          f"sandboxed bots, one worker (-P solo), {database} + {broker}")
    print(f"  engine alone (sandboxed, in process): {engine:6.2f} matches/s "
          f"= {engine * 60:7.1f} matches/min  (before {engine_before:.2f}, "
          f"after {engine_after:.2f})")
    print(f"  site, queue to rating (one worker):   {site['rate']:6.2f} matches/s "
          f"= {site['rate'] * 60:7.1f} matches/min  ({site['wall']:.1f} s)")
    print(f"  share of the worker's wall time spent in the engine: {site['engine_share']:.0%}"
          f"  (site work {site['overhead_ms']:.0f} ms a match: queue, claim, store, rate)")
    print(f"  site overhead vs the engine in the same worker: {1 - site['engine_share']:.1%}"
          f"  (robust to the machine's load; target < 25%)")
    print(f"  site overhead vs the engine alone in this process: {overhead:.1%}"
          f"  (target < 25%; noisy when the machine is shared)")
    print(f"  load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
