#!/usr/bin/env python
"""Tournament page speed: the server time of a tournament's page (and of the API poll its live
updates make) for a 64-bot Swiss of 6 rounds and a 64-bot knockout, in PostgreSQL, under
concurrent clients from 127.0.0.1. Target: 95th percentile under 150 ms.

1. A fresh PostgreSQL database `kaiser_bench_tournaments` (dropped at the end unless --keep),
   migrated; 1,000 bots on the main ladder and --background finished ladder matches (COPY, as
   bench/page_speed.py fills its database), so the tournaments' rows sit among many others.
2. The tournaments are made by the real services (tournaments.services: pairings, byes,
   rounds, the final ranking) from 64 of those bots: a Swiss of 6 rounds and a knockout, both
   played to the end, and a second Swiss stopped in its fourth round (a page while it runs).
   Each match is finished with a real engine replay (no engine play: the page only reads).
3. The body of each page (crosstable, standings, bracket) is cached per state of its
   tournament, as visitors get it; what a first visit after a result costs is printed
   apart, measured in-process without the cache.
4. gunicorn (sync workers, DEBUG off) and the load of bench/page_speed.py: `--clients`
   threads, a shuffled mix of the pages, of what a running tournament's page polls every 3 s
   for its live updates (`?part=progress`), and of the API's tournament detail (the anonymous
   throttle raised for the run: every request comes from one address); gunicorn's own time
   per request and the client's.

Usage:
    .venv/bin/python bench/tournament_page_speed.py [--clients 4] [--requests 300]
                                                    [--workers 3] [--background 20000] [--keep]
                                                    [--field 64]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["KAISER_DISPATCH_DEPTH"] = "0"  # matches stay in the database: nothing plays them
# Every request comes from 127.0.0.1: the API's anonymous throttle (120/min an address) would
# answer the live poll with 429 long before the page's speed is measured.
os.environ["KAISER_THROTTLE_ANON"] = "1000000/min"

from bench import page_speed  # noqa: E402 (its server, load and report; after the path)

DB_NAME = "kaiser_bench_tournaments"
SERVER = page_speed.SERVER


def database_create() -> str:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    return f"{SERVER}/{DB_NAME}"


def database_drop() -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def finish_queued(tournament_id: int, replays: list[tuple[bytes, int, float, int, int]],
                  rng: random.Random, stop_round: int | None = None) -> None:
    """Finish the tournament's queued matches round by round, as match_finish would (the
    result, the replay), and let the service make the next round; stop before `stop_round`'s
    matches are all done (half of them finished) when given."""
    from django.utils import timezone

    from matches.models import Match
    from matches.services import match_sides_result
    from tournaments import services
    from tournaments.models import Tournament

    while True:
        tournament = Tournament.objects.get(pk=tournament_id)
        queued = list(Match.objects.filter(tournament_id=tournament_id,
                                           status=Match.Status.QUEUED).order_by("id"))
        if not queued:
            return
        if stop_round is not None and tournament.current_round >= stop_round:
            queued = queued[: len(queued) // 2]
        for match in queued:
            gz, size, score, ga, gb = rng.choice(replays)
            if rng.random() < 0.5:
                score, ga, gb = 1.0 - score, gb, ga
            now = timezone.now()
            Match.objects.filter(pk=match.pk).update(
                status=Match.Status.FINISHED, score=score, games_a=ga, games_b=gb,
                replay_gz=gz, replay_size=size, started=now, finished=now, play_ms=100,
                attempts=1)
            match_sides_result(match_id=match.pk, games={"A": ga, "B": gb})  # the sides' rows
            services.tournament_advance(tournament_id=tournament_id)
        if stop_round is not None and tournament.current_round >= stop_round:
            return


def tournaments_make(versions: list[int], size: int) -> dict[str, int]:
    """A Swiss of 6 rounds and a knockout of `size` bots played to the end, and a Swiss
    stopped in its fourth round: {label: tournament id}, the running one's label last."""
    from bots.models import BotVersion
    from ladder.models import Ladder
    from tournaments import services

    replays = page_speed.real_replays(24)
    rng = random.Random(5)
    ladder = Ladder.objects.get(slug="main")
    field = list(BotVersion.objects.filter(pk__in=rng.sample(versions, size))
                 .select_related("bot"))
    made = {}
    for label, fmt, rounds, stop in ((f"Swiss, {size} bots, 6 rounds, finished", "swiss", 6, None),
                                     (f"knockout, {size} bots, finished", "knockout", 1, None),
                                     (f"Swiss, {size} bots, round 4 running", "swiss", 6, 4)):
        tournament = services.tournament_create(name=label, format=fmt, rounds=rounds,
                                                versions=field, ladder=ladder)
        finish_queued(tournament.pk, replays, rng, stop_round=stop)
        tournament.refresh_from_db()
        made[label] = tournament.pk
        print(f"  {label}: {tournament.status}, {tournament.matches.count()} matches, "
              f"{tournament.byes.count()} byes")
    return made


def query_counts(made: dict[str, int]) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_ACCEPT="text/html")
    counts = []
    for label, pk in made.items():
        with CaptureQueriesContext(connection) as captured:
            assert client.get(f"/tournaments/{pk}/").status_code == 200
        counts.append(f"{label}: {len(captured)}")
    print("queries of a tournament page: " + "; ".join(counts))


def cold_render_times(made: dict[str, int], repeat: int = 30) -> None:
    """The body's work when the cache does not have it (the first visit after a result): the
    reads and the HTML, in-process, without the cache."""
    from tournaments.models import Tournament
    from tournaments.views import tournament_body_html

    figures = []
    for label, pk in made.items():
        tournament = Tournament.objects.get(pk=pk)
        times = []
        for _ in range(repeat):
            began = time.perf_counter()
            tournament_body_html(tournament)
            times.append(time.perf_counter() - began)
        times.sort()
        figures.append(f"{label}: median {1000 * times[len(times) // 2]:.1f} ms, "
                       f"p95 {1000 * times[int(0.95 * len(times)) - 1]:.1f} ms")
    print(f"the body uncached (reads and rows, in-process, {repeat} times, load average "
          f"{os.getloadavg()[0]:.1f}): " + "; ".join(figures))


def pages(made: dict[str, int]) -> dict[str, Callable[[random.Random], str]]:
    def fixed(path: str) -> Callable[[random.Random], str]:
        return lambda rng: path

    out = {label: fixed(f"/tournaments/{pk}/") for label, pk in made.items()}
    running = list(made.values())[-1]  # the running Swiss, made last
    out["live poll (running Swiss)"] = fixed(f"/tournaments/{running}/?part=progress")
    out["API detail (running Swiss)"] = fixed(f"/api/v1/tournaments/{running}/")
    return out


def server_times(log: Path, skip: int, made: dict[str, int]) -> dict[str, list[float]]:
    """gunicorn's own time of each request (the warm-up left out), by page."""
    names = {f"/tournaments/{pk}/?": label for label, pk in made.items()}
    running = list(made.values())[-1]  # the running Swiss, made last
    names[f"/tournaments/{running}/?part=progress"] = "live poll (running Swiss)"
    names[f"/api/v1/tournaments/{running}/?"] = "API detail (running Swiss)"
    times: dict[str, list[float]] = {name: [] for name in names.values()}
    with log.open() as lines:
        lines.seek(skip)
        for line in lines:
            path, status, micros = line.split()
            if path in names and status == "200":
                times[names[path]].append(int(micros) / 1e6)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=300, help="per page")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn sync workers")
    parser.add_argument("--field", type=int, default=64, help="bots in each tournament")
    parser.add_argument("--background", type=int, default=20_000,
                        help="finished ladder matches around the tournaments")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()

    url = database_create()
    proc = None
    try:
        page_speed.django_setup(url)
        began = time.monotonic()
        versions = page_speed.bots_create(1000)
        page_speed.matches_copy(versions, args.background, page_speed.real_replays(24))
        made = tournaments_make(versions, args.field)
        print(f"filled {DB_NAME} in {time.monotonic() - began:.0f} s "
              f"({args.background} ladder matches beside the tournaments)")
        query_counts(made)
        cold_render_times(made)
        page_speed.cache_forget()
        port = page_speed.free_port()
        access_log = Path(tempfile.mkdtemp(prefix="kaiser-bench-log-")) / "access.log"
        proc = page_speed.server_start(url, port, args.workers, access_log)
        paths = pages(made)
        page_speed.load(port, paths, 2, 5)  # warm up
        time.sleep(1)
        skip = access_log.stat().st_size
        load_before = os.getloadavg()[0]
        began = time.monotonic()
        times = page_speed.load(port, paths, args.clients, args.requests)
        wall = time.monotonic() - began
        total = sum(len(v) for v in times.values())
        print(f"gunicorn -w {args.workers} (sync), {args.clients} concurrent clients on "
              f"127.0.0.1, {os.cpu_count()} CPUs, load average before {load_before:.1f}, after "
              f"{os.getloadavg()[0]:.1f}; {total} requests in {wall:.1f} s "
              f"({total / wall:.1f}/s)")
        time.sleep(1)
        page_speed.report("server time (gunicorn's own, per request):",
                          server_times(access_log, skip, made))
        page_speed.report("at the client (server time plus waiting for a free worker):", times)
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
        from django.db import connections

        page_speed.cache_forget()
        connections.close_all()
        if not args.keep:
            database_drop()


if __name__ == "__main__":
    main()
