#!/usr/bin/env python
"""Play latency: the time from a bot's answer to a page that polls like the game page
(static/js/play.js: GET state/?after=N every 100 ms) seeing it. Target: median under 300 ms.

1. A fresh site in a temporary folder (SQLite and the filesystem broker), or the PostgreSQL
   database and Redis given by DATABASE_URL / REDIS_URL (an empty database: it is migrated).
2. The web server (manage.py runserver) and a play worker (celery -Q play, threads) as
   subprocesses, each in its own process group, stopped at the end.
3. `--games` one-deal games of a person against three house players (`--seat`, default
   builtin:random). This script is the person's page: it polls over HTTP with the page's
   interval and answers each of its turns at once with its first legal move. The worker
   stamps every move with the time it was applied (the view's `recent` list, wall clock in
   ms); a bot's move is seen when the first poll answer that includes it arrives. The figure is
   seen - stamped, for every bot move.

Usage:
    .venv/bin/python bench/play_latency.py [--games 10] [--poll-ms 100] [--seat builtin:random]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)


def stop(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
            proc.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the web server exited:\n{log.read_text()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit("the web server did not start")


def wait_for_log(log: Path, text: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while text not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)


class Page:
    """The game page's side: polls state/ and posts moves, on one kept-alive connection."""

    def __init__(self, port: int, session: str, csrf: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Cookie": f"sessionid={session}; csrftoken={csrf}",
                        "X-CSRFToken": csrf, "Accept": "application/json"}

    def get(self, path: str) -> dict[str, Any]:
        self.conn.request("GET", path, headers=self.headers)
        response = self.conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"GET {path}: {response.status} {body[:300]!r}")
        return json.loads(body)

    def post(self, path: str, data: dict[str, Any]) -> None:
        self.conn.request("POST", path, body=json.dumps(data),
                          headers={**self.headers, "Content-Type": "application/json"})
        response = self.conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"POST {path}: {response.status} {body[:300]!r}")


def play_one(page: Page, game_id: int, poll: float) -> list[float]:
    """Play the game as the page does; the latency of each bot move seen, in ms."""
    seq, latencies = -1, []
    while True:
        data = page.get(f"/play/{game_id}/state/?after={seq}")
        now = time.time() * 1000
        view = data.get("view")
        if not data.get("unchanged") and view:
            for move in view.get("recent", []):
                if move["seq"] > max(seq, 0) and move["seat"] != 0:
                    latencies.append(now - move["at"])
            seq = data["seq"]
            if view.get("your_turn"):
                legal = view["legal"]
                action = legal[: view["kitty"]] if view["decision"] == "discard" else legal[0]
                page.post(f"/play/{game_id}/move/", {"seq": seq, "action": action})
        if data["status"] in ("finished", "void"):
            if data["status"] == "void":
                raise SystemExit(f"game {game_id} is void: {data.get('void_reason')}")
            return latencies
        time.sleep(poll)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--poll-ms", type=int, default=100)
    parser.add_argument("--seat", default="builtin:random")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="kaiser-play-bench-"))
    env = {**os.environ, "KAISER_VAR_DIR": str(folder / "var"), "DEBUG": "1",
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1",
           "KAISER_PLAY_QUEUE": f"play-bench-{os.getpid()}",
           "KAISER_PLAY_OPEN_GAMES": "1000", "KAISER_PROGRAM_DIR": str(folder / "programs")}
    os.environ.update({k: env[k] for k in ("KAISER_VAR_DIR", "DEBUG", "DJANGO_SETTINGS_MODULE",
                                           "KAISER_PLAY_QUEUE", "KAISER_PLAY_OPEN_GAMES",
                                           "KAISER_PROGRAM_DIR")})
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)
    port = free_port()
    web_log, worker_log = folder / "web.log", folder / "worker.log"
    web = start([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                env, web_log)
    worker = start([sys.executable, "-m", "celery", "-A", "kaiser_site", "worker", "-Q",
                    env["KAISER_PLAY_QUEUE"], "-P", "threads", "-c", "2", "-l", "INFO",
                    "-n", f"play-bench-{os.getpid()}@%h", "--without-gossip",
                    "--without-mingle", "--without-heartbeat"], env, worker_log)
    try:
        wait_for_port(port, web, web_log)
        wait_for_log(worker_log, "ready.", worker)
        latencies = run_games(port, args)
    finally:
        stop(worker)
        stop(web)
    shutil.rmtree(folder, ignore_errors=True)  # kept, with its logs, when the run failed
    report(latencies, args)


def run_games(port: int, args: argparse.Namespace) -> list[float]:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.middleware.csrf import _get_new_csrf_string
    from django.test import Client

    from play import services

    user, _ = User.objects.get_or_create(username="bench-person")
    client = Client()
    client.force_login(user)
    page = Page(port, client.cookies["sessionid"].value, _get_new_csrf_string())
    latencies: list[float] = []
    for _ in range(args.games):
        game = services.game_create(owner=user, rules="official", length="deal",
                                    seats=[args.seat] * 3)
        latencies += play_one(page, game.pk, args.poll_ms / 1000)
    return latencies


def report(latencies: list[float], args: argparse.Namespace) -> None:
    if not latencies:
        raise SystemExit("no bot move was seen")
    ordered = sorted(latencies)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    load = os.getloadavg()[0]
    print(f"play latency: {len(ordered)} bot moves in {args.games} one-deal games "
          f"({args.seat} x3), page polling every {args.poll_ms} ms")
    print(f"  bot's answer -> page sees it: median {statistics.median(ordered):.0f} ms, "
          f"90th percentile {p90:.0f} ms, max {ordered[-1]:.0f} ms (target: median < 300 ms)")
    print(f"  load average {load:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
