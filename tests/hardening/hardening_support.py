"""Real processes for the hardening tests: Celery workers, a private redis-server, a sweeper
that plays celery beat's part, and a look at /proc for bot processes left behind.

Everything here is started as a subprocess in a session of its own and ended by its pid (or
its process group), never by name.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.db import transaction

from bots.models import BotVersion
from ladder import selectors
from ladder.models import Ladder, LadderEntry, RatingChange
from matches import services
from matches.models import Match, MatchAttempt
from tests.processes import LoggedProcess as Proc

ROOT = Path(__file__).resolve().parents[2]

# Plays the first legal action after a pause, so a match lasts long enough to break something
# in the middle of it. Its command line carries a marker (bot.json's run), so the test can
# find every process of it that is still alive, sandboxed or not.
SLOW_BOT = """import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": m["id"], "type": "ready"}), flush=True)
    elif m["type"] == "act":
        time.sleep(%(pause)s)
        legal = m["legal"]
        hand = len(m["state"]["hand"])
        action = legal[: hand - 8] if m["decision"] == "discard" else legal[0]
        print(json.dumps({"id": m["id"], "action": action}), flush=True)
    elif m["type"] == "match_end":
        break
"""


def slow_bot_zip(marker: str, pause: float = 0.02) -> bytes:
    """A zip program whose every process has `marker` in its command line."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", SLOW_BOT % {"pause": pause})
        archive.writestr("bot.json", json.dumps({"run": ["python3", "bot.py", marker]}))
    return buffer.getvalue()


_BUNDLE = re.compile(rb"--bundle[=\0](/[^\0]+)")
_bundles: dict[bytes, bytes] = {}  # a gVisor seat's bundle folder: its config.json, once read


def _bundle_config(raw: bytes) -> bytes:
    """Under gVisor the bot's command line is not a host process's: runsc, its Sentry, gofer
    and stubs name the seat's bundle, whose program.json holds it once the seat has its
    program (a seat booted ahead has none yet). Remembered, so that a process that outlives
    its seat (whose bundle is gone) is still found."""
    found = _BUNDLE.search(raw)
    if found is None:
        return b""
    folder = found.group(1)
    if folder not in _bundles:
        try:
            _bundles[folder] = (Path(os.fsdecode(folder)) / "program.json").read_bytes()
        except OSError:
            return b""  # not handed a program yet, or gone: looked at again next time
    return _bundles[folder]


def processes_with(marker: str) -> list[tuple[int, str]]:
    """(pid, command line) of every live process whose command line contains `marker`, or
    that runs a gVisor seat whose bot's command line does."""
    found = []
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (marker.encode() in raw or marker.encode() in _bundle_config(raw)):
            found.append((int(entry.name), raw.replace(b"\0", b" ").decode(errors="replace")))
    return found + _children_of({pid for pid, _ in found})


def _children_of(parents: set[int]) -> list[tuple[int, str]]:
    """gVisor's ptrace stubs: children of its Sentry, with no command line of their own."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in parents:
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        parent = int(status.split("PPid:")[1].split()[0])
        if parent in parents and "State:\tZ" not in status:
            found.append((int(entry.name), f"(a child of {parent})"))
    return found


def wait_until_gone(marker: str, timeout: float = 20) -> list[tuple[int, str]]:
    """Bot processes still alive after `timeout` (the sandbox gives a bot a grace period)."""
    deadline = time.monotonic() + timeout
    while (alive := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Processes:
    """Starts the subprocesses of one test and ends them all afterwards."""

    folder: Path
    env: dict[str, str]
    queue: str
    started: list[Proc] = field(default_factory=list)

    def start(self, name: str, command: list[str], env: dict[str, str] | None = None) -> Proc:
        log = self.folder / f"{name}-{len(self.started)}.log"
        with log.open("wb") as sink:
            proc = subprocess.Popen(command, cwd=ROOT, env={**self.env, **(env or {})},
                                    stdout=sink, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        started = Proc(proc, log)
        self.started.append(started)
        return started

    def worker(self, *, pool: str = "solo", concurrency: int = 1,
               env: dict[str, str] | None = None) -> Proc:
        n = len(self.started)
        command = [sys.executable, "-m", "celery", "-A", "kaiser_site", "worker", "-P", pool,
                   "-c", str(concurrency), "-Q", self.queue, "-n", f"{self.queue}-{n}@%h",
                   "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "INFO"]
        worker = self.start("worker", command, env)
        worker.wait_for_log(r"ready\.")
        return worker

    def sweeper(self, *, period: float = 0.5, env: dict[str, str] | None = None) -> Proc:
        """Celery beat's part, every `period` seconds: matches_requeue_stale (which also
        dispatches). Broker errors are logged and the loop goes on, as beat's would."""
        code = (
            "import time, django; django.setup()\n"
            "from django.db import close_old_connections\n"
            "from matches import services\n"
            "while True:\n"
            "    close_old_connections()  # as a worker does around each task\n"
            "    try:\n"
            "        print(services.matches_requeue_stale(), flush=True)\n"
            "    except Exception as error:\n"
            "        print('sweep failed:', type(error).__name__, error, flush=True)\n"
            f"    time.sleep({period})\n"
        )
        return self.start("sweeper", [sys.executable, "-c", code], env)

    def redis(self, port: int) -> Proc:
        server = self.start("redis", ["redis-server", "--port", str(port), "--bind",
                                      "127.0.0.1", "--save", "", "--appendonly", "no",
                                      "--daemonize", "no"])
        server.wait_for_log(r"Ready to accept connections")
        return server

    def stop_all(self) -> None:
        # SIGKILL, not a warm shutdown: a worker would first finish its match; nothing of
        # the test's outcome depends on these processes any more.
        for started in reversed(self.started):
            started.kill_group()


def queue_matches(ladder: Ladder, pairs: list[tuple[BotVersion, BotVersion]]) -> list[Match]:
    with transaction.atomic():  # dispatched (if this process dispatches at all) on commit
        for pair in pairs:
            for version in pair:
                LadderEntry.objects.get_or_create(ladder=ladder, version=version)
        return [services.match_create(versions=[a, b], kind=Match.Kind.LADDER,
                                      conditions=ladder, ladder=ladder, rated=True)
                for a, b in pairs]


def assert_each_match_counted_once(ladder: Ladder, matches: list[Match]) -> None:
    """Every match finished, with exactly one stored attempt and one rating change per side,
    and the stored ratings are what replaying the history gives."""
    for match in matches:
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED, match
        outcomes = list(MatchAttempt.objects.filter(match=match).values_list("outcome", flat=True))
        assert outcomes.count(MatchAttempt.Outcome.FINISHED) == 1, (match.pk, outcomes)
        assert MatchAttempt.Outcome.RUNNING not in outcomes, (match.pk, outcomes)
        assert RatingChange.objects.filter(match=match).count() == 2, match
    entries = {e.version_id: e for e in LadderEntry.objects.filter(ladder=ladder)}
    played: dict[int, int] = {}
    for match in matches:
        for version_id in match.version_ids:
            played[version_id] = played.get(version_id, 0) + 1
    assert {v: e.games for v, e in entries.items()} == played
    recomputed = selectors.ratings_recomputed(ladder=ladder)
    assert set(recomputed) == set(entries)
    for version_id, entry in entries.items():
        assert recomputed[version_id][0] == pytest.approx(entry.elo), version_id
        assert recomputed[version_id][1] == entry.games
