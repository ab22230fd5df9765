#!/usr/bin/env python
"""Server time of the board pages with 1,000 bots and 100,000 finished matches in PostgreSQL:
the bot page (with its costliest boards), the bot page against one opponent, a match's board
comparison, one board side by side, and their API. Target: 95th percentile under 150 ms.

bench/page_speed.py's database and load (its functions, on a database of its own,
`kaiser_bench_boards`), plus what match_finish stores for boards: each match's BoardLoss rows
(the three biggest losses of each side of engine.kaiser.boards.board_comparison of its
replay), by COPY. The board pages work the comparison out from the replay
(Match.board_comparison).

Usage:
    .venv/bin/python bench/boards_page_speed.py [--bots 1000] [--matches 100000] [--clients 4]
                                                [--requests 300] [--workers 3] [--keep] [--reuse]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import page_speed  # noqa: E402

page_speed.DB_NAME = os.environ.get("KAISER_BENCH_BOARDS_DB", "kaiser_bench_boards")
# Three of the six pages are API calls: the anonymous throttle (120/min) would refuse them.
os.environ["KAISER_THROTTLE_ANON"] = "1000000/min"
page_speed.PAGE_OF = [
    (re.compile(r"^/bots/\d+/\?$"), "bot page"),
    (re.compile(r"^/bots/\d+/\?boards_opponent="), "bot page, one opponent"),
    (re.compile(r"^/matches/\d+/boards/\?$"), "match boards"),
    (re.compile(r"^/matches/\d+/boards/\d+/\d+/\?$"), "one board"),
    (re.compile(r"^/api/v1/matches/\d+/boards/\?$"), "boards (API)"),
    (re.compile(r"^/api/v1/boards/costliest/"), "costliest (API)"),
]


def boards_fill(replays: list[tuple[bytes, int, float, int, int]]) -> int:
    """The BoardLoss rows, as match_finish writes them, for every match
    (match i has the replay i % len(replays), as page_speed.matches_copy made it)."""
    from django.db import connection

    from engine.kaiser.boards import board_comparison
    from matches.boards import BOARD_LOSSES_PER_MATCH, costliest

    boards = [board_comparison(json.loads(gzip.decompress(r[0]))) for r in replays]
    losses = [{side: costliest(b, side, BOARD_LOSSES_PER_MATCH) for side in "AB"}
              for b in boards]
    raw = connection.connection
    with raw.cursor() as cur:
        cur.execute("SELECT m.id, sa.version_id, sb.version_id, m.seed, va.bot_id, vb.bot_id "
                    "FROM tournaments_match m "
                    'JOIN matches_matchside sa ON sa.match_id = m.id AND sa."order" = 0 '
                    'JOIN matches_matchside sb ON sb.match_id = m.id AND sb."order" = 1 '
                    "JOIN bots_botversion va ON va.id = sa.version_id "
                    "JOIN bots_botversion vb ON vb.id = sb.version_id ORDER BY m.id")
        rows = cur.fetchall()
    count = 0
    with raw.cursor() as cur, cur.copy(
            "COPY matches_boardloss (match_id, version_id, opponent_id, opponent_bot_id, side, "
            "game, deal, swing, kind, step) FROM STDIN") as copy:
        for match_id, a, b, seed, bot_a, bot_b in rows:
            mine = losses[int(seed) % len(boards)]
            for side, version, opponent, bot, sign in (("A", a, b, bot_b, 1),
                                                       ("B", b, a, bot_a, -1)):
                for lost in mine[side]:
                    difference = lost["difference"] or {}
                    copy.write_row((match_id, version, opponent, bot, side, lost["game"],
                                    lost["deal"], sign * lost["swing"],
                                    difference.get("kind") or "", difference.get("step") or 0))
                    count += 1
    with raw.cursor() as cur:
        cur.execute("ANALYZE")
    raw.commit()
    return count


def pages(versions: list[int]) -> dict[str, Callable[[random.Random], str]]:
    from bots.models import BotVersion
    from matches.models import Match

    bots = list(BotVersion.objects.filter(pk__in=versions).values_list("pk", "bot_id"))
    names = dict(BotVersion.objects.filter(pk__in=versions).values_list("bot_id", "bot__name"))
    low = Match.objects.order_by("id").values_list("id", flat=True).first()
    high = Match.objects.order_by("-id").values_list("id", flat=True).first()
    assert low is not None and high is not None
    bot_ids = [b for _, b in bots]
    return {
        "bot page": lambda rng: f"/bots/{rng.choice(bot_ids)}/",
        "bot page, one opponent": lambda rng: (f"/bots/{rng.choice(bot_ids)}/?boards_opponent="
                                               f"{names[rng.choice(bot_ids)]}"),
        "match boards": lambda rng: f"/matches/{rng.randint(low, high)}/boards/",
        "one board": lambda rng: f"/matches/{rng.randint(low, high)}/boards/1/1/",
        "boards (API)": lambda rng: f"/api/v1/matches/{rng.randint(low, high)}/boards/",
        "costliest (API)": lambda rng: f"/api/v1/boards/costliest/?version={rng.choice(bots)[0]}",
    }


def query_counts(versions: list[int]) -> None:
    """The queries of a first visit to each page (nothing cached), in-process."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    counts = []
    for name, path in pages(versions).items():
        with CaptureQueriesContext(connection) as captured:
            accept = "application/json" if path(random.Random(0)).startswith("/api/") \
                else "text/html"
            response = client.get(path(random.Random(0)), HTTP_ACCEPT=accept)
            assert response.status_code == 200, (path(random.Random(0)), response.status_code)
        counts.append(f"{name} {len(captured)}")
    print("queries of a first visit: " + ", ".join(counts))
    page_speed.cache_forget()


def selector_times(versions: list[int], repeat: int = 200) -> None:
    """The reads the boards add, in-process, on random versions and matches: the bot page's
    costliest boards (newest matches; against one opponent) and a match's stored boards."""
    import statistics

    from bots.models import BotVersion
    from matches import selectors
    from matches.models import Match

    rng = random.Random(5)
    bots = list(BotVersion.objects.filter(pk__in=versions).values_list("pk", "bot_id"))
    high = Match.objects.order_by("-id").values_list("id", flat=True).first() or 1
    reads: dict[str, Callable[[], object]] = {
        "costliest boards (newest 500 matches)": lambda: selectors.costliest_boards(
            version_id=rng.choice(bots)[0]),
        "costliest boards (against one bot)": lambda: selectors.costliest_boards(
            version_id=rng.choice(bots)[0], opponent_bot_id=rng.choice(bots)[1]),
        "a match's boards": lambda: selectors.match_boards(
            match_id=rng.randint(1, high)),
    }
    for name, read in reads.items():
        times = []
        for _ in range(repeat):
            began = time.perf_counter()
            read()
            times.append(time.perf_counter() - began)
        ms = sorted(1000 * t for t in times)
        print(f"in-process, {name}: median {statistics.median(ms):.2f} ms, "
              f"p95 {ms[int(0.95 * len(ms)) - 1]:.2f} ms ({repeat} reads)")


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

    url = f"{page_speed.SERVER}/{page_speed.DB_NAME}" if args.reuse \
        else page_speed.database_create()
    proc: Any = None
    try:
        page_speed.django_setup(url)
        page_speed.cache_forget()
        if args.reuse:
            versions = page_speed.bench_versions()
        else:
            began = time.monotonic()
            versions = page_speed.bots_create(args.bots)
            replays = page_speed.real_replays(24)
            page_speed.matches_copy(versions, args.matches, replays)
            losses = boards_fill(replays)
            print(f"filled {page_speed.DB_NAME}: {args.bots} bots, {args.matches} finished "
                  f"matches with their boards, {losses} BoardLoss rows in "
                  f"{time.monotonic() - began:.0f} s")
        query_counts(versions)
        selector_times(versions)
        port = page_speed.free_port()
        access_log = Path(tempfile.mkdtemp(prefix="kaiser-bench-log-")) / "access.log"
        proc = page_speed.server_start(url, port, args.workers, access_log)
        paths = pages(versions)
        page_speed.load(port, paths, 2, 5)  # warm up
        time.sleep(1)
        skip = access_log.stat().st_size
        load_before = os.getloadavg()[0]
        began = time.monotonic()
        times = page_speed.load(port, paths, args.clients, args.requests)
        wall = time.monotonic() - began
        total = sum(len(v) for v in times.values())
        print(f"gunicorn -w {args.workers} (sync), {args.clients} concurrent clients, "
              f"{os.cpu_count()} CPUs, load average before {load_before:.1f}, after "
              f"{os.getloadavg()[0]:.1f}; {total} requests in {wall:.1f} s")
        time.sleep(1)
        page_speed.report("server time (gunicorn's own, per request):",
                          page_speed.server_times(access_log, skip))
        page_speed.report("at the client (server time plus waiting for a free worker):", times)
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
        from django.db import connections

        connections.close_all()
        if not (args.keep or args.reuse):
            page_speed.database_drop()


if __name__ == "__main__":
    main()
