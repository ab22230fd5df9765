#!/usr/bin/env python
"""People at tables: `--tables` simulated people, each in a one-deal game against three
builtin:random seats, all on one play worker, their pages following the push (events/, the
ASGI app under uvicorn, Redis). Targets: a bot's move on the page within 150 ms (median) of
its answer; fewer than one database query a second per table waiting for its person.

1. A fresh site: the database given by DATABASE_URL (migrated; an empty one) or SQLite in a
   temporary folder; the Redis of REDIS_URL, or a private redis-server.
2. uvicorn (the web) and one Celery play worker (-P threads, one thread a table) as
   subprocesses, each with its database queries counted (bench/query_count.py) and, on
   PostgreSQL, a pool of at most `--web-pool` / `--worker-pool` connections
   (DATABASE_POOL_MAX_SIZE): 500 threads share 20 connections. The connections the database
   holds for the bench are sampled twice a second (pg_stat_activity); their peak is printed.
3. The people (asyncio, in this process, on plain HTTP/1.1 over asyncio streams: they stand
   for visitors on their own machines, so they are kept lean): games are opened `--batch` at
   a time, each page opens its event stream (a connection of its own, as an EventSource
   holds one) and posts its moves on another, kept alive, as a browser does (session cookie,
   CSRF header). Once every table waits for its person, nobody moves for
   `--quiet-seconds`: the queries made meanwhile, per table and second, are the waiting cost.
   Then each person answers every turn after a think of about `--think-ms` with their first
   legal move, until the deal is over. A bot's move is seen when the first event holding it
   arrives; the figure is that time less the worker's stamp of the move (the view's `recent`
   list, wall clock, the same machine). The web's requests are counted as the people make them.

Usage:
    .venv/bin/python bench/people_tables.py [--tables 500] [--think-ms 3000] [--quiet-seconds 10]
                                            [--web-pool 10] [--worker-pool 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.play_latency import free_port, start, stop, wait_for_log, wait_for_port  # noqa: E402


class Link:
    """One HTTP/1.1 connection to the web, kept alive as a browser keeps it: a plain asyncio
    stream. The bench's people stand for visitors on their own machines, so their cost is kept
    small: no client library's connection pool (httpx scanned all of its connections for every
    request, its CPU per request growing with the number of tables)."""

    def __init__(self, port: int, cookies: dict[str, str]) -> None:
        self.port = port
        self.cookie = "; ".join(f"{k}={v}" for k, v in cookies.items()).encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def send(self, method: str, path: str, body: bytes = b"",
                   headers: bytes = b"") -> asyncio.StreamReader:
        """Send one request on the connection (a new one if the server closed it); the
        reader, after the status line and headers were checked: 200 or SystemExit."""
        if self.reader is None or self.reader.at_eof():
            await self.close()
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.writer is not None
        self.writer.write(b"%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nCookie: %s\r\n%s"
                          b"Content-Length: %d\r\n\r\n%s" % (
                              method.encode(), path.encode(), self.port, self.cookie, headers,
                              len(body), body))
        await self.writer.drain()
        return self.reader

    async def head(self) -> tuple[int, dict[bytes, bytes]]:
        """The status and the (lower-cased) headers of the answer being read."""
        assert self.reader is not None
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionResetError("closed by the server")
        fields: dict[bytes, bytes] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip()
        return int(status_line.split()[1]), fields

    async def body(self, fields: dict[bytes, bytes]) -> bytes:
        """A whole answer's body (Content-Length, or chunked to its last chunk)."""
        assert self.reader is not None
        if b"content-length" in fields:
            return await self.reader.readexactly(int(fields[b"content-length"]))
        parts = []
        async for chunk in self.chunks():
            parts.append(chunk)
        return b"".join(parts)

    async def chunks(self) -> Any:
        """The chunks of a chunked answer, each as it arrives."""
        assert self.reader is not None
        while size := int((await self.reader.readline()).split(b";")[0], 16):
            chunk = await self.reader.readexactly(size + 2)  # the chunk and its CRLF
            yield chunk[:-2]
        await self.reader.readline()  # the CRLF after the last (empty) chunk

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


class Table:
    """One person's page: the event stream in (its own connection, as an EventSource holds
    one), the moves out (another, kept alive)."""

    def __init__(self, people: People, game_id: int, cookies: dict[str, str]) -> None:
        self.people, self.game_id, self.cookies = people, game_id, cookies
        self.poster = Link(people.port, cookies)
        self.seq = -1  # the newest state received
        self.answered = -1
        self.view: dict[str, Any] = {}
        self.waiting = asyncio.Event()  # set while the person is to move
        self.done = asyncio.Event()
        self.status = ""

    async def follow(self) -> None:
        p, stream = self.people, Link(self.people.port, self.cookies)
        p.requests += 1
        try:
            await stream.send("GET", f"/play/{self.game_id}/events/",
                              headers=b"Accept: text/event-stream\r\n")
            status, fields = await stream.head()
            if status != 200 or fields.get(b"transfer-encoding") != b"chunked":
                raise SystemExit(f"events/ of game {self.game_id}: {status} {fields}")
            pending = b""
            async for chunk in stream.chunks():
                # Server-sent events end with a blank line; an event may span chunks.
                *events, pending = (pending + chunk).split(b"\n\n")
                for event in events:
                    self.event(event)
                    if self.done.is_set():
                        return
        finally:
            await stream.close()

    def event(self, event: bytes) -> None:
        for line in event.split(b"\n"):
            if line.startswith(b"data: "):
                self.receive(json.loads(line[6:]), time.time() * 1000)

    def receive(self, message: dict[str, Any], now: float) -> None:
        view, p = message.get("view") or {}, self.people
        for move in view.get("recent", []):
            if move["seq"] > max(self.seq, 0) and move["seat"] != 0 and p.playing:
                p.latencies.append(now - move["at"])
                if now - move["at"] > 1000:  # when and where the slow ones were
                    p.slow.append((now / 1000 - p.began, self.game_id, move["seq"],
                                   now - move["at"]))
        self.seq, self.status, self.view = message["seq"], message["status"], view
        if self.status in ("finished", "void"):
            self.done.set()
            self.waiting.clear()
            return
        if view.get("your_turn") and self.answered < self.seq:
            self.waiting.set()
            if p.playing:
                self.answer_later(view)
        else:
            self.waiting.clear()

    def answer_later(self, view: dict[str, Any]) -> None:
        seq, legal = self.seq, view["legal"]
        action = legal[: view["kitty"]] if view["decision"] == "discard" else legal[0]
        self.answered = seq
        think = self.people.think * random.uniform(0.5, 1.5)
        asyncio.get_running_loop().call_later(
            think, lambda: asyncio.ensure_future(self.post(seq, action)))

    async def post(self, seq: int, action: Any) -> None:
        """POST move/ as the page does (session cookie, CSRF header, JSON body)."""
        p, link = self.people, self.poster
        body = json.dumps({"seq": seq, "action": action}).encode()
        headers = b"Content-Type: application/json\r\nX-CSRFToken: %s\r\n" % (
            self.cookies["csrftoken"].encode())
        for attempt in (1, 2):
            p.requests += 1
            try:
                await link.send("POST", f"/play/{self.game_id}/move/", body, headers)
                status, fields = await link.head()
                answer = await link.body(fields)
                break
            except (OSError, asyncio.IncompleteReadError) as error:
                # A kept-alive connection the server closed as it was reused: posted again
                # on a new one (a move posted twice counts once).
                await link.close()
                if attempt == 2:
                    p.failed.append(f"move {seq} of game {self.game_id}: {error!r}")
                    self.done.set()
                    return
        if fields.get(b"connection") == b"close":
            await link.close()
        if status != 200:
            raise SystemExit(f"move {seq} of game {self.game_id}: {status} {answer[:300]!r}")


class People:
    def __init__(self, port: int, think_ms: int) -> None:
        self.port = port
        self.think = think_ms / 1000
        self.tables: list[Table] = []
        self.latencies: list[float] = []
        self.slow: list[tuple[float, int, int, float]] = []  # (s into play, game, seq, ms)
        self.began = 0.0  # the wall clock when play began
        self.requests = 0
        self.playing = False
        self.failed: list[str] = []


def make_people(count: int) -> list[tuple[Any, dict[str, str]]]:
    from django.contrib.auth.models import User
    from django.middleware.csrf import _get_new_csrf_string
    from django.test import Client

    people = []
    for n in range(count):
        user, _ = User.objects.get_or_create(username=f"person-{n}")
        client = Client()
        client.force_login(user)
        people.append((user, {"sessionid": client.cookies["sessionid"].value,
                              "csrftoken": _get_new_csrf_string()}))
    return people


async def seat_everyone(people: People, count: int, batch: int) -> list[asyncio.Task[None]]:
    """Open the games `batch` at a time (the worker starts each in a thread holding a database
    connection until its person is to move), each page following its stream."""
    from asgiref.sync import sync_to_async

    from play import services

    who = await sync_to_async(make_people)(count)
    followers = []
    for start_at in range(0, len(who), batch):
        group = []
        for user, cookies in who[start_at:start_at + batch]:
            game = await sync_to_async(services.game_create)(
                owner=user, rules="official", length="deal", seats=["builtin:random"] * 3)
            table = Table(people, game.pk, cookies)
            people.tables.append(table)
            group.append(table)
            followers.append(asyncio.create_task(table.follow()))
        await wait_all(group, lambda t: t.waiting.wait(), "every person's first turn")
    return followers


async def wait_all(tables: list[Table], what: Any, label: str, timeout: float = 300) -> None:
    try:
        await asyncio.wait_for(asyncio.gather(*(what(t) for t in tables)), timeout)
    except TimeoutError:
        stuck = [t.game_id for t in tables if not t.waiting.is_set() and not t.done.is_set()]
        raise SystemExit(f"timed out waiting for {label}: games {stuck[:10]} ...") from None


class ConnectionPeak:
    """The most connections PostgreSQL held to the bench's database at once (pg_stat_activity,
    sampled twice a second on a connection of its own, which is not counted), the sampler's
    own left out."""

    def __init__(self) -> None:
        self.peak = 0
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        from django.db import connection

        if connection.vendor != "postgresql":
            return
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        import psycopg
        from django.db import connection

        params = connection.get_connection_params()
        params.pop("cursor_factory", None)
        params.pop("context", None)
        with psycopg.connect(**params, autocommit=True) as conn:
            while not self.stopped.wait(0.5):
                held = conn.execute("SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = "
                                    "current_database()").fetchone()
                self.peak = max(self.peak, held[0] if held else 0)

    def stop(self) -> int:
        self.stopped.set()
        if self.thread is not None:
            self.thread.join(5)
        return self.peak


def cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    """The CPU time (user + system) each process has used so far (/proc/<pid>/stat)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for role, pid in pids.items():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        out[role] = (int(fields[11]) + int(fields[12])) / tick
    return out


def queries(client: Any, prefix: str) -> dict[str, int]:
    return {role: int(client.get(f"{prefix}:{role}") or 0) for role in ("web", "worker")}


async def run(port: int, args: argparse.Namespace, counts: Any, prefix: str,
              pids: dict[str, int]) -> dict[str, Any]:
    people = People(port, args.think_ms)
    peak = ConnectionPeak()
    peak.start()
    began = time.monotonic()
    followers = await seat_everyone(people, args.tables, args.batch)
    seated = time.monotonic() - began
    figures: dict[str, Any] = {"tables": len(people.tables), "seated_seconds": seated}
    await asyncio.sleep(1)  # the processes add their counts to Redis twice a second
    before = queries(counts, prefix)
    await asyncio.sleep(args.quiet_seconds)  # nobody moves: what does waiting cost?
    after = queries(counts, prefix)
    figures["quiet"] = {k: after[k] - before[k] for k in after}
    waiting = sum(t.waiting.is_set() for t in people.tables)
    figures["waiting"] = waiting
    people.began = time.time()
    people.playing, requests0, began = True, people.requests, time.monotonic()
    cpu0 = cpu_seconds(pids)
    for table in people.tables:  # the quiet is over: each answers the turn waiting
        if table.waiting.is_set():
            table.answer_later(table.view)
    await wait_all(people.tables, lambda t: t.done.wait(), "the end of every game", 900)
    figures["play_seconds"] = time.monotonic() - began
    figures["cpu"] = {k: v - cpu0[k] for k, v in cpu_seconds(pids).items()}
    figures["play_queries"] = {k: v - after[k] for k, v in queries(counts, prefix).items()}
    figures["requests"] = people.requests - requests0
    figures["latencies"] = people.latencies
    figures["slow"] = people.slow
    figures["void"] = sum(t.status == "void" for t in people.tables)
    if people.failed:
        raise SystemExit(f"{len(people.failed)} moves failed: {people.failed[:5]}")
    await asyncio.gather(*followers, return_exceptions=True)
    for table in people.tables:
        await table.poster.close()
    figures["connections_peak"] = await asyncio.to_thread(peak.stop)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--think-ms", type=int, default=3000)
    parser.add_argument("--quiet-seconds", type=float, default=10)
    parser.add_argument("--batch", type=int, default=25, help="games opened at once")
    parser.add_argument("--web-pool", type=int, default=10,
                        help="the web's PostgreSQL pool (DATABASE_POOL_MAX_SIZE); 0: no pool")
    parser.add_argument("--worker-pool", type=int, default=20,
                        help="the play worker's PostgreSQL pool; 0: no pool")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="kaiser-people-bench-"))
    redis_server = None
    redis_url = os.environ.get("REDIS_URL", "")
    if not redis_url:
        redis_port = free_port()
        redis_server = start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no"], dict(os.environ),
                             folder / "redis.log")
        wait_for_log(folder / "redis.log", "Ready to accept connections", redis_server)
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
    run_id = uuid.uuid4().hex[:8]
    prefix = f"bench-people-{run_id}"
    env = {**os.environ, "KAISER_VAR_DIR": str(folder / "var"), "DEBUG": "0",
           "SECRET_KEY": "bench-" + run_id * 4, "ALLOWED_HOSTS": "127.0.0.1,localhost",
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1",
           "KAISER_PLAY_QUEUE": f"play-{prefix}", "KAISER_PLAY_OPEN_GAMES": "100000",
           "KAISER_PROGRAM_DIR": str(folder / "programs"), "KAISER_PLAY_REDIS_URL": redis_url,
           "KAISER_PLAY_PUSH_PREFIX": prefix, "BENCH_COUNT_REDIS_URL": redis_url,
           "KAISER_PLAY_CONCURRENCY": str(args.tables)}
    os.environ.update({k: env[k] for k in env if k.startswith(("KAISER_", "DJANGO_", "DEBUG",
                                                                  "SECRET_KEY", "ALLOWED"))})
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)
    port = free_port()
    counter = [sys.executable, "bench/query_count.py"]
    web = start([*counter, f"{prefix}:web", "uvicorn", "kaiser_site.asgi:application",
                 "--host", "127.0.0.1", "--port", str(port), "--no-access-log",
                 "--log-level", "warning"],
                {**env, "DATABASE_POOL_MAX_SIZE": str(args.web_pool)}, folder / "web.log")
    worker = start([*counter, f"{prefix}:worker", "celery", "-A", "kaiser_site", "worker",
                    "-Q", env["KAISER_PLAY_QUEUE"], "-P", "threads", "-c", str(args.tables),
                    "-l", "WARNING", "-n", f"{prefix}@%h", "--without-gossip",
                    "--without-mingle", "--without-heartbeat"],
                   {**env, "DATABASE_POOL_MAX_SIZE": str(args.worker_pool)},
                   folder / "worker.log")
    try:
        wait_for_port(port, web, folder / "web.log")
        import django
        import redis

        django.setup()
        counts = redis.Redis.from_url(redis_url)
        pids = {"web": web.pid, "worker": worker.pid, "people (this bench)": os.getpid()}
        figures = asyncio.run(run(port, args, counts, prefix, pids))
        counts.delete(f"{prefix}:web", f"{prefix}:worker")
    finally:
        stop(worker)
        stop(web)
        if redis_server is not None:
            stop(redis_server)
    shutil.rmtree(folder, ignore_errors=True)  # kept, with its logs, when the run failed
    report(figures, args, env)


def report(f: dict[str, Any], args: argparse.Namespace, env: dict[str, str]) -> None:
    from django.db import connection

    lat = sorted(f["latencies"])
    if not lat:
        raise SystemExit("no bot move was seen")
    quiet = sum(f["quiet"].values())
    per_table = quiet / max(f["waiting"], 1) / args.quiet_seconds
    pools = (f"database pools: web {args.web_pool}, worker {args.worker_pool} connections at "
             f"most; peak held (web, worker and the bench's own) {f['connections_peak']}"
             if connection.vendor == "postgresql" else "no pool (SQLite)")
    print(f"people at tables: {f['tables']} one-deal games (builtin:random x3), one play "
          f"worker process (-P threads -c {args.tables}: a thread a table), one uvicorn "
          f"process, {connection.vendor} + Redis, think ~{args.think_ms} ms")
    print(f"  {pools}; all seated (each to its person's first turn) in "
          f"{f['seated_seconds']:.1f} s")
    print(f"  bot's answer -> page (pushed): median {statistics.median(lat):.0f} ms, "
          f"90th percentile {lat[int(0.9 * (len(lat) - 1))]:.0f} ms, max {lat[-1]:.0f} ms "
          f"over {len(lat)} bot moves (target: median < 150 ms)")
    slow = sorted(f["slow"])
    print(f"  99th percentile {lat[int(0.99 * (len(lat) - 1))]:.0f} ms; over 1 s: {len(slow)} "
          f"bot moves" + (f", seen from {slow[0][0]:.1f} s to {slow[-1][0]:.1f} s into the play, "
                          f"in {len({g for _, g, _, _ in slow})} games" if slow else ""))
    print(f"  waiting tables: {f['waiting']} for {args.quiet_seconds:g} s: {quiet} queries "
          f"(web {f['quiet']['web']}, worker {f['quiet']['worker']}) = {per_table:.3f} "
          f"queries/s per waiting table (target: < 1)")
    secs = f["play_seconds"]
    played = sum(f["play_queries"].values())
    print(f"  playing: {secs:.1f} s, web requests {f['requests']} = "
          f"{f['requests'] / secs:.1f}/s, database queries {played / secs:.1f}/s "
          f"(web {f['play_queries']['web']}, worker {f['play_queries']['worker']}); "
          f"void games {f['void']}")
    moves = max(len(lat), 1)
    print("  CPU while playing, per bot move seen: " + ", ".join(
        f"{role} {cpu:.1f} s = {cpu / moves * 1000:.1f} ms ({cpu / secs:.0%} of a core)"
        for role, cpu in f["cpu"].items()))
    print(f"  load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
