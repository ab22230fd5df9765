"""Fixtures for games against the bots: a signed-in person's client, the worker's side of a
game (play.services.game_play, the task's one call) run in a thread of this process, a Redis
for the push (play.push), and the site on the ASGI server (uvicorn) as a subprocess."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from play import services
from play.models import Table


@pytest.fixture(autouse=True)
def _push_prefix(settings: Any) -> None:
    """The play app's Redis keys of this test's own (game ids repeat from test to test)."""
    import uuid

    settings.KAISER_PLAY_PUSH_PREFIX = f"test-play-{uuid.uuid4().hex[:12]}"


def push_env() -> dict[str, str]:
    """What a worker or web subprocess needs to share this test's push (play.push)."""
    from django.conf import settings

    return {"KAISER_PLAY_REDIS_URL": settings.KAISER_PLAY_REDIS_URL,
            "KAISER_PLAY_PUSH_PREFIX": settings.KAISER_PLAY_PUSH_PREFIX,
            "KAISER_PLAY_QUEUE": settings.KAISER_PLAY_QUEUE}


@pytest.fixture
def push_redis(settings: Any, tmp_path: Any) -> Iterator[str]:
    """The play app's push on: the suite's Redis (REDIS_URL), or else a private redis-server
    started here (never the machine's shared one unasked). Yields its URL."""
    import os
    import socket
    import subprocess

    from tests.processes import LoggedProcess

    url, server = os.environ.get("REDIS_URL", ""), None
    if not url:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        log = tmp_path / "redis.log"
        with log.open("wb") as sink:
            server = LoggedProcess(subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no"], stdout=sink, stderr=subprocess.STDOUT,
                start_new_session=True), log)
        server.wait_for_log(r"Ready to accept connections")
        url = f"redis://127.0.0.1:{port}/0"
    settings.KAISER_PLAY_REDIS_URL = url
    yield url
    if server is not None:
        server.stop()


@pytest.fixture
def asgi_server(tmp_path: Any) -> Iterator[Callable[..., str]]:
    """start(**env): the site under uvicorn (kaiser_site.asgi) on this test's database, broker,
    play queue and push; returns its base URL. Stopped at the end."""
    import os
    import socket
    import subprocess
    import sys

    from django.conf import settings as django_settings

    from tests.processes import ROOT, LoggedProcess, database_url_of_this_test

    started: list[LoggedProcess] = []

    def start(**extra_env: str) -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        env = {**os.environ, "DATABASE_URL": database_url_of_this_test(), "DEBUG": "1",
               "KAISER_PROGRAM_DIR": str(django_settings.KAISER_PROGRAM_DIR),
               "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1",
               **push_env(), **extra_env}
        log = tmp_path / f"uvicorn-{len(started)}.log"
        with log.open("wb") as sink:
            server = LoggedProcess(subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "kaiser_site.asgi:application", "--host",
                 "127.0.0.1", "--port", str(port), "--no-access-log"], cwd=ROOT, env=env,
                stdout=sink, stderr=subprocess.STDOUT, start_new_session=True), log)
        started.append(server)
        server.wait_for_log(r"Uvicorn running on")
        return f"http://127.0.0.1:{port}"

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def person_client(owner: Any, password: str) -> Client:
    client = Client()
    assert client.login(username=owner.username, password=password)
    return client


class GameThread:
    """game_play(game) in a thread, as the play worker runs it."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.outcome: str | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.outcome = services.game_play(game_id=self.game_id, worker="test-thread")
        except BaseException as error:  # reported by join()
            self.error = error
        finally:
            connection.close()

    def join(self, timeout: float = 60) -> str:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the game is still being played"
        if self.error is not None:
            raise self.error
        assert self.outcome is not None
        return self.outcome


@pytest.fixture
def play_game(private_broker: Any) -> Iterator[Callable[[Table], GameThread]]:
    """start(game): its worker side in a thread (the broker is private: no worker of the
    machine picks the dispatched task up). Every thread is joined at the end."""
    threads: list[GameThread] = []

    def start(game: Table) -> GameThread:
        threads.append(GameThread(game.pk))
        return threads[-1]

    yield start
    for thread in threads:
        Table.objects.filter(pk=thread.game_id, status=Table.Status.RUNNING).update(
            resign_requested=True)
        thread.thread.join(30)


def wait_view(game: Table, *, seq: int | None = None, timeout: float = 60,
              turn: bool = True) -> Table:
    """The game once it waits for the person (at move `seq`, if given) or is over."""
    deadline = time.monotonic() + timeout
    while True:
        game.refresh_from_db()
        if not game.is_open:
            return game
        view = game.view or {}
        if (not turn or view.get("your_turn")) and (seq is None or game.seq >= seq):
            return game
        assert time.monotonic() < deadline, f"game {game.pk} never waited: {game.status}"
        time.sleep(0.02)


@pytest.fixture
def real_workers(settings: Any, tmp_path: Any) -> Iterator[Callable[..., Any]]:
    """start(queue_setting, pool, concurrency): a real Celery worker subprocess on a queue of
    this test's own (the play queue, or the ladder's), on the broker and database this test
    uses. Stopped (its process group) at the end."""
    import os
    import uuid

    from django.conf import settings as django_settings

    from tests.processes import LoggedProcess, celery_worker_start, database_url_of_this_test

    queues = {"KAISER_PLAY_QUEUE": f"play-test-{uuid.uuid4().hex[:10]}",
              "KAISER_MATCH_QUEUE": f"ladder-test-{uuid.uuid4().hex[:10]}"}
    for name, value in queues.items():
        setattr(settings, name, value)
    env = {**os.environ, **queues, "DATABASE_URL": database_url_of_this_test(),
           "KAISER_PROGRAM_DIR": str(django_settings.KAISER_PROGRAM_DIR),
           "DJANGO_SETTINGS_MODULE": "kaiser_site.settings", "PYTHONUNBUFFERED": "1"}
    started: list[LoggedProcess] = []

    def start(queue: str = "KAISER_PLAY_QUEUE", pool: str = "threads", concurrency: int = 2,
              **extra_env: str) -> LoggedProcess:
        worker = celery_worker_start(
            tmp_path / f"worker-{len(started)}.log", queue=queues[queue],
            name=f"{queues[queue]}-{len(started)}", pool=pool, concurrency=concurrency,
            env={**env, **push_env(), **extra_env})
        started.append(worker)
        worker.wait_for_log(r"ready\.")
        return worker

    yield start
    for worker in started:
        # A game the test left open would hold a warm shutdown until its move's timeout:
        # nothing of it is asserted any more, so the worker gets 3 s, then is killed.
        worker.stop(grace_s=3)
