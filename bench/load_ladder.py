#!/usr/bin/env python
"""100 bots on the ladder, the worker busy, the web under concurrent clients: do the pages keep
answering, and does the queue stay bounded without starving?

Everything runs here, on 127.0.0.1 only: gunicorn (the site), one Celery worker (-P solo),
celery beat (the real schedule: ladder top-up every 10 s, stale sweep every 60 s), and a
private redis-server (never the shared one). 100 bots with built-in players (random and
greedy) are on an active ladder; matches are short, so the worker never idles. Meanwhile
`--clients` threads fetch pages and API reads for `--seconds`, each from a fresh list of bot
and match ids. The API's anonymous throttle is raised for the run: every client comes from
127.0.0.1 and would otherwise share one 120/min budget.

Prints: latency percentiles per page (p50/p95/max) and overall, errors, requests/s, how the
shared page cache answered (its X-Page-Cache header: hit, recent, stale, miss; "built" when it
is off or the page is not shared); the queue (queued/running/finished) sampled over time; how
many samples had work waiting and no match running (starvation); the rated games per bot
(min/median/max).

`--page-cache off` runs the site as it was before the shared page cache (issue 21): every page
built per request. `--compare` runs the bench twice, off then on, each with a fresh database
and processes, and prints both reports and the two side by side.

Uses a database of its own, made fresh: PostgreSQL `kaiser_load` next to DATABASE_URL when
that is PostgreSQL, else var/load.sqlite3. Usage:
    .venv/bin/python bench/load_ladder.py [--bots 100] [--clients 16] [--seconds 60]
        [--page-cache on|off | --compare] [--database kaiser_load]
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests" / "hardening")]
QUEUE_DEPTH = 8


def _setup(bots: int) -> None:
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from bots.models import Bot
    from bots.services import bot_builtin_add
    from ladder.models import Ladder

    call_command("migrate", verbosity=0)
    owners = [User.objects.create_user(username=f"author{i}") for i in range(10)]
    for i in range(bots):
        bot = Bot.objects.create(owner=owners[i % 10], name=f"bot{i:03d}")
        bot_builtin_add(bot=bot, spec="builtin:greedy" if i % 3 else "builtin:random")
    Ladder.objects.filter(slug="main").update(active=True, queue_depth=QUEUE_DEPTH)


def _paths() -> list[str]:
    from bots.models import Bot
    from matches.models import Match

    bots = list(Bot.objects.values_list("pk", flat=True))
    matches = list(Match.objects.filter(status="finished").order_by("-pk")
                   .values_list("pk", flat=True)[:50]) or [1]
    return ["/", "/ladders/main/", "/matches/", "/bots/", f"/bots/{random.choice(bots)}/",
            f"/matches/{random.choice(matches)}/", "/tournaments/",
            "/api/v1/ladders/main/", "/api/v1/matches/", f"/api/v1/bots/{random.choice(bots)}/"]


def _label(path: str) -> str:
    return "/".join("N" if part.isdigit() else part for part in path.split("/"))


class Clients:
    def __init__(self, port: int, count: int, seconds: float) -> None:
        self.port, self.count, self.seconds = port, count, seconds
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.served: dict[str, int] = defaultdict(int)  # by X-Page-Cache
        self.lock = threading.Lock()
        self.paths = _paths()

    def run(self) -> float:
        threads = [threading.Thread(target=self._client, args=(i,)) for i in range(self.count)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return time.monotonic() - began

    def _client(self, seed: int) -> None:
        rng = random.Random(seed)
        deadline = time.monotonic() + self.seconds
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while time.monotonic() < deadline:
            path = rng.choice(self.paths)
            began = time.monotonic()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                status = response.status
                how = response.getheader("X-Page-Cache") or "built"
            except (OSError, http.client.HTTPException) as error:
                status, how = type(error).__name__, "error"
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            elapsed = time.monotonic() - began
            with self.lock:
                self.latency[_label(path)].append(elapsed)
                self.served[how] += 1
                if status != 200:
                    self.errors[f"{_label(path)} {status}"] += 1
        conn.close()


def _queue_sampler(stop: threading.Event, samples: list[tuple[float, int, int, int]]) -> None:
    from django.db import close_old_connections
    from django.db.models import Count, Q

    from matches.models import Match

    began = time.monotonic()
    while not stop.wait(2.0):
        close_old_connections()
        # One query, so a match moving from queued to running is not counted twice.
        counts = Match.objects.aggregate(**{
            s: Count("pk", filter=Q(status=s)) for s in ("queued", "running", "finished")})
        samples.append((time.monotonic() - began, counts["queued"], counts["running"],
                        counts["finished"]))


def _start(processes: object, port: int, web_port: int, schedule: Path) -> None:
    broker = {"REDIS_URL": f"redis://127.0.0.1:{port}/0"}
    processes.redis(port)  # type: ignore[attr-defined]
    processes.worker(env=broker)  # type: ignore[attr-defined]
    beat = processes.start(  # type: ignore[attr-defined]
        "beat", [sys.executable, "-m", "celery", "-A", "kaiser_site", "beat", "-s",
                 str(schedule), "-l", "INFO"], broker)
    beat.wait_for_log("beat: Starting")
    web = processes.start("web", [sys.executable, "-m", "gunicorn",  # type: ignore[attr-defined]
                                  "kaiser_site.wsgi:application", "-b", f"127.0.0.1:{web_port}",
                                  "-w", "3", "--access-logfile", "-"], broker)
    web.wait_for_log("Booting worker", count=3)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _report(clients: Clients, wall: float, samples: list[tuple[float, int, int, int]],
            bots: int, vendor: str) -> None:
    from ladder.models import LadderEntry

    everything = [v for values in clients.latency.values() for v in values]
    print(f"load: {bots} bots on the main ladder (queue depth {QUEUE_DEPTH}), one worker "
          f"(-P solo) + beat, gunicorn -w 3, {clients.count} clients for {wall:.0f} s, "
          f"{vendor} + private redis-server, all on 127.0.0.1")
    print(f"  {'page':28} {'n':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for label, values in sorted(clients.latency.items()):
        print(f"  {label:28} {len(values):6d} {statistics.median(values) * 1000:8.0f} "
              f"{_percentile(values, 0.95) * 1000:8.0f} {max(values) * 1000:8.0f}")
    print(f"  {'all':28} {len(everything):6d} {statistics.median(everything) * 1000:8.0f} "
          f"{_percentile(everything, 0.95) * 1000:8.0f} {max(everything) * 1000:8.0f}")
    print(f"  {len(everything) / wall:.1f} requests/s; not 200: "
          f"{dict(clients.errors) if clients.errors else 'none'}")
    print(f"  page cache {os.environ.get('KAISER_PAGE_CACHE')}; answers: "
          + ", ".join(f"{how} {n}" for how, n in sorted(clients.served.items())))
    print("  queue over time (s: queued/running/finished):")
    step = max(1, len(samples) // 16)
    print("    " + "  ".join(f"{t:.0f}:{q}/{r}/{f}" for t, q, r, f in samples[::step]))
    # Starving: work was waiting at both ends of a sampling interval and nothing finished.
    starved = sum(1 for a, b in zip(samples, samples[1:], strict=False)
                  if a[1] and b[1] and b[3] == a[3])
    peak = max((q + r for _, q, r, _ in samples), default=0)
    done = samples[-1][3] - samples[0][3] if len(samples) > 1 else 0
    span = samples[-1][0] - samples[0][0] if len(samples) > 1 else 1
    print(f"  waiting + running at most {peak} (bound: the ladder's queue depth {QUEUE_DEPTH});"
          f" 2-s intervals with work waiting and nothing finished: {starved} of "
          f"{max(0, len(samples) - 1)}")
    print(f"  {done} matches finished while measured = {done / span * 60:.0f}/min")
    games = sorted(LadderEntry.objects.filter(ladder__slug="main", active=True)
                   .values_list("games", flat=True))
    if not games:
        print("  no bot on the ladder: nothing was played")
        return
    print(f"  rated matches per bot: min {games[0]}, median {statistics.median(games):.0f}, "
          f"max {games[-1]} over {len(games)} entries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=15.0, help="ladder running first")
    parser.add_argument("--database", default="kaiser_load",
                        help="the PostgreSQL database made fresh for the run (or var/<name>)")
    parser.add_argument("--page-cache", choices=["on", "off"], default="on",
                        help="off: every page built per request, as before issue 21")
    parser.add_argument("--compare", action="store_true",
                        help="run with the page cache off, then on, and compare")
    args = parser.parse_args()
    if args.compare:
        _compare([a for a in sys.argv[1:] if a != "--compare"])
        return
    from fault_recovery import _database

    # Celery's default queue, as in production: beat's tasks and the matches share it (the
    # redis-server is private to this run).
    queue = "celery"
    env = {"DATABASE_URL": _database(args.database), "KAISER_MATCH_QUEUE": "",
           # An anonymous caller is counted by the "user" rate too (DRF's UserRateThrottle
           # counts by address without a login): both are raised.
           "KAISER_THROTTLE_ANON": "1000000/min", "KAISER_THROTTLE_USER": "1000000/min",
           "KAISER_PAGE_CACHE": "1" if args.page_cache == "on" else "0",
           "DJANGO_SETTINGS_MODULE":
           "kaiser_site.settings", "PYTHONUNBUFFERED": "1"}
    os.environ.update(env)
    import django

    django.setup()
    from django.db import connection
    from hardening_support import Processes, free_port

    _setup(args.bots)
    folder = Path(tempfile.mkdtemp(prefix="kaiser-load-"))
    processes = Processes(folder=folder, env=dict(os.environ), queue=queue)
    samples: list[tuple[float, int, int, int]] = []
    stop = threading.Event()
    try:
        web_port = free_port()
        _start(processes, free_port(), web_port, folder / "beat-schedule")
        time.sleep(args.warmup)
        sampler = threading.Thread(target=_queue_sampler, args=(stop, samples))
        sampler.start()
        clients = Clients(web_port, args.clients, args.seconds)
        wall = clients.run()
        stop.set()
        sampler.join()
    finally:
        stop.set()
        processes.stop_all()
    _report(clients, wall, samples, args.bots, connection.vendor)
    print(f"  logs: {folder}")


ROW = re.compile(r"^  (\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", re.M)


def _compare(argv: list[str]) -> None:
    """The bench as it was (page cache off), then as it is, one after the other."""
    runs = {}
    for side in ("off", "on"):
        print(f"=== page cache {side}: bench/load_ladder.py {' '.join(argv)} --page-cache {side}",
              flush=True)
        out = subprocess.run([sys.executable, __file__, *argv, "--page-cache", side],
                             capture_output=True, text=True, check=True).stdout
        print(out, flush=True)
        rate = re.search(r"([\d.]+) requests/s", out)
        runs[side] = ({m[0]: (int(m[2]), int(m[3])) for m in ROW.findall(out)},
                      float(rate[1]) if rate else 0.0)
    (before, before_rate), (after, after_rate) = runs["off"], runs["on"]
    print("=== before (every page built per request) and after (shared page cache)")
    print(f"  {'page':28} {'before p50/p95 ms':>18} {'after p50/p95 ms':>18}")
    for label in sorted(set(before) | set(after)):
        b, a = before.get(label, (0, 0)), after.get(label, (0, 0))
        print(f"  {label:28} {b[0]:>8d} / {b[1]:<7d} {a[0]:>8d} / {a[1]:<7d}")
    ratio = after_rate / before_rate if before_rate else float("inf")
    print(f"  requests/s: before {before_rate:.1f}, after {after_rate:.1f} ({ratio:.1f}x)")


if __name__ == "__main__":
    main()
