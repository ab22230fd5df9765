#!/usr/bin/env python
"""A new author's first rated match: the time from uploading the starter bot to its first
rated ladder match finished, on a fresh site with no other author, for each game. Target:
under 2 minutes on this machine (issue 34).

1. A fresh site in a temporary folder (or KAISER_VAR_DIR), on the README's defaults: SQLite
   and Kombu's filesystem broker (DATABASE_URL and REDIS_URL are not used). Its migrations
   make the house bots, as on every site.
2. The README's stack, as run.sh starts it without the demo data: scripts/devserver.py (the
   web server, the ladder's worker, the play worker and beat) in its own process group,
   stopped at the end.
3. For each game (`--games`), `--authors` new authors one after the other, each alone on
   the site with its game's house bots: an account and a token, a bot of the game, the
   starter uploaded through the API (Kaiser: random.zip; Sergeant Major:
   sergeant_major_bot.py), then the match list polled until one of its rated matches has
   finished. The figure is the match's `finished` minus the version's `created`, both stamped
   by the server: the upload check, the scheduler's next tick, the queue and the match.
   Each author's bot is retired before the next one uploads, so every one is alone.

Usage:
    .venv/bin/python bench/first_rated_match.py [--games kaiser,sergeant-major] [--authors 3]
"""

from __future__ import annotations

import argparse
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
import urllib.error
import urllib.request
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXAMPLES = ROOT / "bots" / "examples"
STARTERS = {"kaiser": EXAMPLES / "random.zip",
            "sergeant-major": EXAMPLES / "sergeant_major_bot.py"}
TARGET_S = 120
WAIT_S = 600  # give up on one author after this long


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Api:
    """The site's API as one author sees it (a token)."""

    def __init__(self, port: int, token: str = "") -> None:
        self.base, self.token = f"http://127.0.0.1:{port}/api/v1", token

    def call(self, method: str, path: str, body: bytes | None = None,
             content_type: str = "application/json") -> Any:
        headers = {"Accept": "application/json", "Content-Type": content_type}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(self.base + path, data=body, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise SystemExit(f"{method} {path}: {error.code} {error.read()[:300]!r}") from None

    def upload(self, bot_id: int, path: Path) -> Any:
        boundary = uuid.uuid4().hex
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="{path.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                ).encode() + path.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
        return self.call("POST", f"/bots/{bot_id}/versions/", body,
                         f"multipart/form-data; boundary={boundary}")


def wait_for_health(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the stack exited:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=5) as r:
                if json.loads(r.read()).get("status") == "ok":
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the stack did not become healthy:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGINT, as Ctrl-C stops run.sh; then SIGKILL to the group if it lingers."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def author(port: int, game: str, number: int) -> float:
    """One new author of `game`: seconds from its upload to its first rated match finished."""
    from django.contrib.auth.models import User

    from accounts.services import user_token

    name = f"{game[:2]}-author-{number}-{uuid.uuid4().hex[:6]}"
    user = User.objects.create_user(name, password=uuid.uuid4().hex)
    api = Api(port, user_token(user=user).key)
    bot = api.call("POST", "/bots/", json.dumps({"name": name, "game": game}).encode())
    version = api.upload(bot["id"], STARTERS[game])
    created = datetime.fromisoformat(version["created"])
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        checked = api.call("GET", f"/versions/{version['id']}/")
        if checked["status"] == "rejected":
            raise SystemExit(f"{name}: the starter was rejected: {checked['reason']}")
        page = api.call("GET", f"/matches/?bot={name}&status=finished")
        rated = [m for m in page["results"] if m["rated"]]
        if rated:
            finished = min(datetime.fromisoformat(m["finished"]) for m in rated)
            api.call("POST", f"/bots/{bot['id']}/retire/")  # the next author is alone
            return (finished - created).total_seconds()
        time.sleep(1)
    raise SystemExit(f"{name}: no rated match within {WAIT_S} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="kaiser,sergeant-major")
    parser.add_argument("--authors", type=int, default=3, help="authors a game (3)")
    args = parser.parse_args()
    games = args.games.split(",")
    folder = Path(tempfile.mkdtemp(prefix="kaiser-first-match-"))
    var = Path(os.environ.get("KAISER_VAR_DIR") or folder / "var")
    var.mkdir(parents=True, exist_ok=True)
    var.chmod(0o755)  # the sandboxed bots run as another user and read their programs here
    port = free_port()
    for server in ("DATABASE_URL", "REDIS_URL"):  # the README's stack needs neither
        os.environ.pop(server, None)
    env = {**os.environ, "KAISER_VAR_DIR": str(var), "DEBUG": "1", "PORT": str(port),
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1",
           "KAISER_WORKER_CONCURRENCY": os.environ.get("KAISER_WORKER_CONCURRENCY", "2")}
    os.environ.update({k: env[k] for k in ("KAISER_VAR_DIR", "DEBUG", "DJANGO_SETTINGS_MODULE")})
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)
    log = folder / "stack.log"
    with log.open("wb") as sink:
        stack = subprocess.Popen([sys.executable, "scripts/devserver.py"], cwd=ROOT, env=env,
                                 stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_health(port, stack, log)
        import django

        django.setup()
        figures = {game: [author(port, game, n) for n in range(args.authors)] for game in games}
    finally:
        stop(stack)
    shutil.rmtree(folder, ignore_errors=True)  # kept, with the stack's log, when a run failed
    report(figures)


def report(figures: dict[str, list[float]]) -> None:
    load = os.getloadavg()[0]
    print("first rated match: upload of the starter -> its first rated ladder match finished, "
          "each author alone on a fresh site with the house bots")
    for game, seconds in figures.items():
        print(f"  {game}: {len(seconds)} authors, median {statistics.median(seconds):.1f} s, "
              f"max {max(seconds):.1f} s (target: under {TARGET_S} s); each: "
              + ", ".join(f"{s:.1f}" for s in seconds))
    print(f"  load average {load:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
