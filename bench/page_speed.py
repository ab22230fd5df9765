#!/usr/bin/env python
"""Page speed: the server time of the home page, a bot page and a match page (and, beside
them, the match list and the replay API) with 1,000 bots and 100,000 finished matches in
PostgreSQL, under concurrent clients from 127.0.0.1. Target: 95th percentile under 150 ms.

1. A fresh PostgreSQL database `kaiser_bench_pages` (dropped at the end unless --keep), migrated,
   on the server of DATABASE_URL when that is PostgreSQL (else postgres@127.0.0.1:5432),
   filled by bulk inserts (COPY): the bots with built-in versions on the main ladder, the
   finished matches (each with a real gzip replay from the engine, 2% ended by a fault, spread
   over 30 days), and two rating changes a match.
2. gunicorn (sync workers, DEBUG off, Redis cache) on 127.0.0.1, warmed up with one pass.
3. `--clients` threads send GET requests in a shuffled mix of the pages; each bot and match
   page request picks a random bot or match. Two figures per page: the server time (gunicorn's
   own measure of each request, from reading it to sending the response) and the time at the
   client, which adds the wait for a free worker when the clients outnumber the workers.
   The machine's load average is printed too: other work on it slows every figure.

Usage:
    .venv/bin/python bench/page_speed.py [--bots 1000] [--matches 100000] [--clients 4]
                                         [--requests 300] [--workers 3] [--keep] [--reuse]
--keep leaves the database for another run; --reuse measures such a database again without
filling it.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DB_NAME = os.environ.get("KAISER_BENCH_PAGES_DB", "kaiser_bench_pages")
_URL = os.environ.get("DATABASE_URL", "")
SERVER = (_URL.rpartition("/")[0] if _URL.startswith(("postgres://", "postgresql://"))
          else "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


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


def cache_forget() -> None:
    """Delete this benchmark's cache keys (only its prefix: the Redis is shared), so that a run
    never serves pages another run rendered (and stored under the same key)."""
    import redis

    client = redis.Redis.from_url(REDIS)
    keys = list(client.scan_iter(match="kaiser-bench-pages:*", count=1000))
    if keys:
        client.delete(*keys)


def django_setup(url: str) -> None:
    os.environ.update(DATABASE_URL=url, REDIS_URL=REDIS, CACHE_KEY_PREFIX="kaiser-bench-pages",
                      DJANGO_SETTINGS_MODULE="kaiser_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


# --- Filling the database ----------------------------------------------------------------------


def real_replays(count: int) -> list[tuple[bytes, int, float, int, int]]:
    """Real replays of built-in players: (gzip bytes, size, score, games A, games B)."""
    from engine.builtin import resolve_player
    from engine.kaiser.match import run_match
    from engine.runner import replay_json

    out = []
    for seed in range(count):
        replay = run_match(resolve_player("builtin:greedy"), resolve_player("builtin:random"),
                           games=2, seed=str(seed))
        text = replay_json(replay).encode()
        result = replay["result"]
        out.append((gzip.compress(text, 6), len(text), float(result["score"]),
                    result["games"]["A"], result["games"]["B"]))
    return out


def bots_create(count: int) -> list[int]:
    from django.contrib.auth.models import User

    from bots.models import Bot, BotVersion
    from ladder.models import Ladder, LadderEntry

    owners = User.objects.bulk_create(User(username=f"author{i}") for i in range(count // 5 + 1))
    bots = Bot.objects.bulk_create(
        Bot(owner=owners[i % len(owners)], name=f"bot{i:04d}", description=f"Bench bot {i}.")
        for i in range(count))
    versions = BotVersion.objects.bulk_create(
        BotVersion(bot=b, number=1, kind=BotVersion.Kind.BUILTIN, builtin="builtin:random",
                   status=BotVersion.Status.ACTIVE, reason="built-in player") for b in bots)
    ladder = Ladder.objects.get(slug="main")
    rng = random.Random(1)
    LadderEntry.objects.bulk_create(
        LadderEntry(ladder=ladder, version=v, elo=rng.gauss(1500, 150), games=0)
        for v in versions)
    return [v.pk for v in versions]


def matches_copy(versions: list[int], count: int, replays: list[tuple[bytes, int, float, int,
                                                                      int]]) -> None:
    """COPY the finished matches, their sides and their rating changes, oldest first."""
    from django.db import connection
    from django.utils import timezone

    from ladder.models import Ladder, LadderEntry

    ladder = Ladder.objects.get(slug="main")
    entries = dict(LadderEntry.objects.filter(ladder=ladder).values_list("version_id", "pk"))
    rng = random.Random(2)
    start = timezone.now() - timedelta(days=30)
    step = timedelta(days=30) / count
    columns = ("kind, ladder_id, rated, seed, status, score, forfeit, replay_gz, "
               "replay_size, error, created, dispatched, started, finished, "
               "play_ms, attempts, lease_token, rules, games_per_match, move_ms, bank_ms, "
               "startup_ms, strict_ms, stats_folded, replay_key, replay_sha256")
    connection.ensure_connection()
    raw = connection.connection
    sides = []  # each match's (version, games won, fault) by side
    with raw.cursor() as cur, cur.copy(f"COPY tournaments_match ({columns}) FROM STDIN") as copy:
        for i in range(count):
            a, b = rng.sample(versions, 2)
            gz, size, score, ga, gb = replays[i % len(replays)]
            fault = rng.random() < 0.02
            if fault:
                score, ga, gb = 1.0, 2, 0
            sides.append([(a, ga, ""), (b, gb, "timeout" if fault else "")])
            when = start + step * i
            copy.write_row((
                "ladder", ladder.pk, True, str(i), "finished", score,
                '{"seat": 1, "player": "B", "reason": "timeout"}' if fault else None,
                gz, size, "", when - timedelta(seconds=40), when - timedelta(seconds=30),
                when - timedelta(seconds=20), when, 120, 1, "", "official", 2, 1000, 10000, 5000,
                0, False, "", ""))  # the replays stay in the rows: served as not moved yet
    sides_copy(raw, sides)
    raw.commit()
    ratings_copy(entries, rng)


def sides_copy(raw: Any, sides: list[list[tuple[int, int, str]]]) -> None:
    """COPY the sides of the matches just copied (in id order), one row a side."""
    with raw.cursor() as cur:
        cur.execute("SELECT id FROM tournaments_match ORDER BY id")
        ids = [row[0] for row in cur.fetchall()]
    with raw.cursor() as cur, cur.copy(
            'COPY matches_matchside (match_id, "order", version_id, games, stderr, fault) '
            "FROM STDIN") as copy:
        for match_id, match_sides in zip(ids, sides, strict=True):
            for order, (version, games, fault) in enumerate(match_sides):
                copy.write_row((match_id, order, version, games, "", fault))


def ratings_copy(entries: dict[int, int], rng: random.Random) -> None:
    """Two rating changes a match (a random walk per entry), and the entries' final Elo."""
    from django.db import connection

    elo = dict.fromkeys(entries.values(), 1500.0)
    games = dict.fromkeys(entries.values(), 0)
    raw = connection.connection
    with raw.cursor() as cur:
        cur.execute("SELECT m.id, a.version_id, b.version_id, m.finished "
                    "FROM tournaments_match m "
                    'JOIN matches_matchside a ON a.match_id = m.id AND a."order" = 0 '
                    'JOIN matches_matchside b ON b.match_id = m.id AND b."order" = 1 '
                    "ORDER BY m.id")
        rows = cur.fetchall()
    with raw.cursor() as cur, cur.copy(
            "COPY tournaments_ratingchange (match_id, entry_id, before, after, created) "
            "FROM STDIN") as copy:
        for match_id, a, b, when in rows:
            delta = rng.uniform(-16, 16)
            for entry, d in ((entries[a], delta), (entries[b], -delta)):
                copy.write_row((match_id, entry, elo[entry], elo[entry] + d, when))
                elo[entry] += d
                games[entry] += 1
    with raw.cursor() as cur:
        cur.executemany("UPDATE tournaments_ladderentry SET elo = %s, games = %s WHERE id = %s",
                        [(elo[e], games[e], e) for e in elo])
        cur.execute("ANALYZE")
    raw.commit()


# --- Serving and measuring -----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_start(url: str, port: int, workers: int, access_log: Path
                 ) -> subprocess.Popen[bytes]:
    static = tempfile.mkdtemp(prefix="kaiser-bench-static-")
    env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": REDIS, "DEBUG": "0",
           "SECRET_KEY": "page-speed-bench", "ALLOWED_HOSTS": "127.0.0.1",
           "CACHE_KEY_PREFIX": "kaiser-bench-pages", "STATIC_ROOT": static,
           "LOG_LEVEL": "WARNING", "DJANGO_SETTINGS_MODULE": "kaiser_site.settings"}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT,
                   env=env, check=True)
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    proc = subprocess.Popen([gunicorn, "kaiser_site.wsgi:application", "-w", str(workers),
                             "-b", f"127.0.0.1:{port}", "--log-level", "warning",
                             "--access-logfile", str(access_log),
                             "--access-logformat", "%(U)s?%(q)s %(s)s %(D)s"],
                            cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            get(port, "/health/")
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("gunicorn did not start")


def get(port: int, path: str) -> float:
    """One GET; seconds from sending it to the last byte of the body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        began = time.perf_counter()
        # As a browser asks for a page, and the viewer's fetch for a replay (text/html would
        # get DRF's browsable API page instead of the JSON).
        accept = "application/json" if path.startswith("/api/") else "text/html"
        conn.request("GET", path, headers={"Accept": accept})
        response = conn.getresponse()
        response.read()
        elapsed = time.perf_counter() - began
    finally:
        conn.close()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: {response.status}")
    return elapsed


def pages(versions: list[int]) -> dict[str, Callable[[random.Random], str]]:
    from bots.models import BotVersion
    from matches.models import Match

    bot_ids = list(BotVersion.objects.filter(pk__in=versions).values_list("bot_id", flat=True))
    low, high = (Match.objects.order_by("id").values_list("id", flat=True).first(),
                 Match.objects.order_by("-id").values_list("id", flat=True).first())
    assert low is not None and high is not None
    return {
        "home": lambda rng: "/",
        "bot page": lambda rng: f"/bots/{rng.choice(bot_ids)}/",
        "match page": lambda rng: f"/matches/{rng.randint(low, high)}/",
        "match list": lambda rng: "/matches/",
        "match list, one bot": lambda rng: f"/matches/?bot=bot{rng.randrange(len(bot_ids)):04d}",
        "replay (API)": lambda rng: f"/api/v1/matches/{rng.randint(low, high)}/replay/",
    }


def load(port: int, paths: dict[str, Callable[[random.Random], str]], clients: int,
         per_page: int) -> dict[str, list[float]]:
    names = list(paths)
    jobs = [names[i % len(names)] for i in range(per_page * len(names))]
    random.Random(3).shuffle(jobs)
    times: dict[str, list[float]] = {n: [] for n in names}
    lock = threading.Lock()

    def client(k: int) -> None:
        rng = random.Random(100 + k)
        while True:
            with lock:
                if not jobs:
                    return
                name = jobs.pop()
            elapsed = get(port, paths[name](rng))
            with lock:
                times[name].append(elapsed)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def query_counts(versions: list[int]) -> None:
    """The queries of a first visit (nothing cached) to each page, in-process; the bot page and
    one bot's matches for the bot with the fewest and the one with the most matches: a count
    that grows with the rows shown would differ."""
    from django.db import connection
    from django.db.models import Count
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bots.models import BotVersion
    from matches.models import Match, MatchSide

    played = BotVersion.objects.filter(pk__in=versions).values_list("pk", "bot_id", "bot__name")
    per_version = dict(MatchSide.objects.order_by().values_list("version_id").annotate(
        n=Count("id")))
    ranked = sorted(played, key=lambda v: per_version.get(v[0], 0))
    few, many = ranked[0], ranked[-1]
    match = Match.objects.order_by("-id").values_list("id", flat=True).first()
    client = Client(HTTP_ACCEPT="text/html")
    urls = {"home": ["/"], "bot page": [f"/bots/{few[1]}/", f"/bots/{many[1]}/"],
            "match page": [f"/matches/{match}/"], "match list": ["/matches/"],
            "match list, one bot": [f"/matches/?bot={few[2]}", f"/matches/?bot={many[2]}"],
            "replay (API)": [f"/api/v1/matches/{match}/replay/"]}
    counts = []
    for name, paths in urls.items():
        found = []
        for path in paths:
            with CaptureQueriesContext(connection) as captured:
                accept = "application/json" if path.startswith("/api/") else "text/html"
                assert client.get(path, HTTP_ACCEPT=accept).status_code == 200, path
            found.append(str(len(captured)))
        counts.append(f"{name} {' / '.join(found)}")
    print(f"queries of a first visit (bot pages and one bot's matches: the bot with the fewest, "
          f"{per_version.get(few[0], 0)}, and the most matches, {per_version.get(many[0], 0)}): "
          + ", ".join(counts))
    cache_forget()


PAGE_OF = [  # the page a logged request path belongs to
    (re.compile(r"^/\?$"), "home"),
    (re.compile(r"^/bots/\d+/\?$"), "bot page"),
    (re.compile(r"^/matches/\d+/\?$"), "match page"),
    (re.compile(r"^/matches/\?$"), "match list"),
    (re.compile(r"^/matches/\?bot="), "match list, one bot"),
    (re.compile(r"^/api/v1/matches/\d+/replay/\?$"), "replay (API)"),
]


def server_times(log: Path, skip: int) -> dict[str, list[float]]:
    """gunicorn's own time for each request (%(D)s: from reading it to the response sent), in
    seconds, by page; the first `skip` bytes of the log (the warm-up) are left out."""
    times: dict[str, list[float]] = {name: [] for _, name in PAGE_OF}
    with log.open() as lines:
        lines.seek(skip)
        for line in lines:
            path, status, micros = line.split()
            name = next((n for pattern, n in PAGE_OF if pattern.search(path)), None)
            if name is not None and status == "200":
                times[name].append(int(micros) / 1e6)
    return times


def report(title: str, times: dict[str, list[float]]) -> None:
    print(title)
    print(f"  {'page':<22}{'n':>6}{'median ms':>11}{'p95 ms':>9}{'max ms':>9}")
    for name, values in times.items():
        ms = sorted(v * 1000 for v in values)
        if not ms:
            continue
        p95 = ms[min(len(ms) - 1, int(round(0.95 * len(ms))) - 1)]
        print(f"  {name:<22}{len(ms):>6}{statistics.median(ms):>11.1f}{p95:>9.1f}{ms[-1]:>9.1f}")


def fill(args: argparse.Namespace) -> list[int]:
    began = time.monotonic()
    versions = bots_create(args.bots)
    matches_copy(versions, args.matches, real_replays(24))
    print(f"filled {DB_NAME}: {args.bots} bots, {args.matches} finished matches, "
          f"{2 * args.matches} rating changes in {time.monotonic() - began:.0f} s")
    return versions


def bench_versions() -> list[int]:
    from bots.models import BotVersion
    from matches.models import Match

    versions = list(BotVersion.objects.filter(bot__name__startswith="bot").values_list(
        "pk", flat=True))
    print(f"reusing {DB_NAME}: {len(versions)} bots, {Match.objects.count()} matches")
    return versions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=300, help="per page")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn sync workers")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure a kept database again")
    args = parser.parse_args()

    url = f"{SERVER}/{DB_NAME}" if args.reuse else database_create()
    proc = None
    try:
        django_setup(url)
        cache_forget()
        versions = fill(args) if not args.reuse else bench_versions()
        query_counts(versions)
        port = free_port()
        access_log = Path(tempfile.mkdtemp(prefix="kaiser-bench-log-")) / "access.log"
        proc = server_start(url, port, args.workers, access_log)
        paths = pages(versions)
        load(port, paths, 2, 5)  # warm up: connections, caches, the fit's cache key
        time.sleep(1)
        skip = access_log.stat().st_size
        load_before = os.getloadavg()[0]  # other work on the machine skews every figure
        began = time.monotonic()
        times = load(port, paths, args.clients, args.requests)
        wall = time.monotonic() - began
        total = sum(len(v) for v in times.values())
        print(f"gunicorn -w {args.workers} (sync), {args.clients} concurrent clients on "
              f"127.0.0.1, {os.cpu_count()} CPUs, load average before {load_before:.1f}, after "
              f"{os.getloadavg()[0]:.1f}; {total} requests in {wall:.1f} s "
              f"({total / wall:.1f}/s)")
        time.sleep(1)
        report("server time (gunicorn's own, per request):", server_times(access_log, skip))
        report("at the client (server time plus waiting for a free worker):", times)
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
        from django.db import connections

        connections.close_all()
        if not (args.keep or args.reuse):
            database_drop()


if __name__ == "__main__":
    main()
