"""The push (play.push) with a real Redis: the person's move wakes the worker without its
polling the database, and the page's event stream (events/, on the ASGI handler) carries the
current state and then each one the worker publishes. Without Redis, or on a WSGI server, the
stream answers 204 and the page polls."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection
from django.test import AsyncClient, Client

from play import push, services
from play.models import Game
from tests.play.conftest import wait_view
from tests.play.test_play_services import _first_legal, _new_game, _post

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


class CountingGame:
    """game_play in a thread, every database query it makes counted."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.queries = 0
        self.outcome: str | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _count(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.queries += 1
        return execute(sql, params, many, context)

    def _run(self) -> None:
        try:
            with connection.execute_wrapper(self._count):
                self.outcome = services.game_play(game_id=self.game_id, worker="counted")
        finally:
            connection.close()


def _blocked(client: redis.Redis) -> dict[str, str] | None:
    """This process's play connection blocked in BLPOP (CLIENT LIST's fields), if any: the
    worker thread's, the only one that pops here."""
    for entry in client.client_list():
        if entry.get("name") == f"kaiser-play-{os.getpid()}" and entry.get("cmd") == "blpop" \
                and "b" in entry.get("flags", ""):
            return entry
    return None


def _wait_blocked(client: redis.Redis, *, idle: int) -> None:
    deadline = time.monotonic() + 30
    while (entry := _blocked(client)) is None or int(entry["idle"]) < idle:
        assert time.monotonic() < deadline, "the worker never blocked on its wake-up list"
        time.sleep(0.05)


def test_the_worker_waits_on_redis_without_a_query_and_wakes_at_once_on_the_move(
    person_client: Client, push_redis: str, settings: Any
) -> None:
    settings.KAISER_PLAY_HEARTBEAT_SECONDS = 30  # no heartbeat within the test's waits
    client = redis.Redis.from_url(push_redis)
    game = _new_game(person_client)
    worker = CountingGame(game.pk)
    try:
        game = wait_view(game)
        _wait_blocked(client, idle=0)
        before = worker.queries
        # Two seconds blocked on Redis (its connection idle): the database was not asked once.
        _wait_blocked(client, idle=2)
        assert worker.queries == before
        seq = game.seq
        assert _post(person_client, game, {"seq": seq, "action": _first_legal(game.view)}
                     ).status_code == 200
        # Woken by the push: the move is played long before the next heartbeat would look.
        game = wait_view(game, seq=seq + 1, turn=False, timeout=10)
        assert game.seq > seq and worker.queries > before
    finally:
        Game.objects.filter(pk=game.pk, status=Game.Status.RUNNING).update(
            resign_requested=True)
        push.wake(game.pk, "resign")
        worker.thread.join(30)
    game.refresh_from_db()
    assert worker.outcome == "finished" and game.forfeit_reason == "resign"


def test_a_resignation_ends_the_wait_at_once_through_the_wake_up(
    person_client: Client, push_redis: str, settings: Any
) -> None:
    settings.KAISER_PLAY_HEARTBEAT_SECONDS = 30
    game = _new_game(person_client)
    worker = CountingGame(game.pk)
    wait_view(game)
    assert person_client.post(f"/play/{game.pk}/resign/",
                              HTTP_ACCEPT="application/json").status_code == 200
    worker.thread.join(10)  # well before the heartbeat: the wake-up ended the wait
    assert not worker.thread.is_alive() and worker.outcome == "finished"
    game.refresh_from_db()
    assert (game.status, game.forfeit_reason, game.forfeit_seat) == ("finished", "resign", 0)


async def _events(stream: AsyncIterator[bytes]) -> AsyncIterator[dict[str, Any]]:
    """The data of each server-sent event of the stream (comments and retry skipped)."""
    buffer = ""
    async for chunk in stream:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
            if data:
                yield json.loads("\n".join(data))


def test_the_event_stream_sends_the_state_then_each_move_the_worker_publishes(
    person_client: Client, push_redis: str, owner: Any, password: str, play_game: Any
) -> None:
    game = _new_game(person_client)
    worker = play_game(game)
    game = wait_view(game)
    seq = game.seq

    async def follow() -> list[dict[str, Any]]:
        client = AsyncClient()
        await client.alogin(username=owner.username, password=password)
        response = await client.get(f"/play/{game.pk}/events/")
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        seen: list[dict[str, Any]] = []
        stream = _events(response.streaming_content)
        seen.append(await anext(stream))  # the current state, from the record
        # The person moves (a thread: the view is sync); the bots' moves come pushed.
        mover = threading.Thread(target=lambda: _post(
            person_client, game, {"seq": seq, "action": _first_legal(game.view)}))
        mover.start()
        async for event in stream:
            seen.append(event)
            if event["view"]["your_turn"] or event["status"] != "running":
                break
        mover.join()
        await stream.aclose()
        return seen

    seen = async_to_sync(follow)()
    first, *pushed = seen
    assert first["seq"] == seq and first["view"]["your_turn"] and first["status"] == "running"
    assert pushed, "no event after the person's move"
    assert [e["seq"] for e in pushed] == list(range(seq + 1, seq + 1 + len(pushed)))
    assert pushed[0]["view"]["last_move"]["seat"] == 0  # the person's own move comes back too
    assert all(e["view"]["last_move"]["seat"] != 0 for e in pushed[1:])
    Game.objects.filter(pk=game.pk).update(resign_requested=True)
    push.wake(game.pk, "resign")
    assert worker.join() == "finished"


def test_the_stream_reads_the_record_once_subscribed_then_sends_what_is_published(
    person_client: Client, push_redis: str, owner: Any, password: str
) -> None:
    game = _new_game(person_client)  # no worker: this test writes and publishes its states
    Game.objects.filter(pk=game.pk).update(status=Game.Status.RUNNING, seq=3,
                                           view={"seq": 3, "your_turn": False})

    async def follow() -> list[dict[str, Any]]:
        client = AsyncClient()
        await client.alogin(username=owner.username, password=password)
        response = await client.get(f"/play/{game.pk}/events/")
        stream = _events(response.streaming_content)
        seen = [await anext(stream)]  # the record, read once subscribed
        # The record moves on (seq 9) while the messages of seq 4 and 5 are on their way:
        # the stream sends those, in order, not the record again.
        await sync_to_async(Game.objects.filter(pk=game.pk).update)(
            seq=9, view={"seq": 9, "your_turn": True})
        for seq in (4, 5):
            await sync_to_async(push.publish)(game.pk, {
                "seq": seq, "status": "running", "view": {"seq": seq, "your_turn": False}})
        seen += [await anext(stream), await anext(stream)]
        await stream.aclose()
        return seen

    assert [event["seq"] for event in async_to_sync(follow)()] == [3, 4, 5]


def test_the_stream_ends_with_the_final_state_once_the_game_is_over(
    person_client: Client, push_redis: str, owner: Any, password: str, play_game: Any
) -> None:
    game = _new_game(person_client)
    worker = play_game(game)
    wait_view(game)

    async def follow() -> list[dict[str, Any]]:
        client = AsyncClient()
        await client.alogin(username=owner.username, password=password)
        response = await client.get(f"/play/{game.pk}/events/")
        stream = _events(response.streaming_content)
        seen = [await anext(stream)]
        threading.Thread(target=lambda: person_client.post(f"/play/{game.pk}/resign/")).start()
        seen += [event async for event in stream]  # the server ends the stream itself
        return seen

    seen = async_to_sync(follow)()
    assert worker.join() == "finished"
    assert seen[-1]["status"] == "finished" and seen[-1]["replay"] == f"/play/{game.pk}/replay/"
    assert seen[-1]["view"]["result"]["forfeit"]["reason"] == "resign"


def test_without_an_asgi_server_or_redis_the_stream_says_204_and_the_page_polls(
    person_client: Client, settings: Any, owner: Any, password: str
) -> None:
    game = _new_game(person_client)
    # A WSGI server (the test client here; runserver, gunicorn's sync workers) cannot hold a
    # stream open per page: 204 tells EventSource to stop, and the page offers no stream.
    assert person_client.get(f"/play/{game.pk}/events/").status_code == 204
    assert "data-events-url" not in person_client.get(f"/play/{game.pk}/").content.decode()
    settings.KAISER_PLAY_REDIS_URL = ""  # the embedded default: no Redis

    async def ask() -> int:
        client = AsyncClient()
        await client.alogin(username=owner.username, password=password)
        return (await client.get(f"/play/{game.pk}/events/")).status_code

    assert async_to_sync(ask)() == 204


def test_the_stream_is_the_owners_only(
    person_client: Client, push_redis: str, other: Any, password: str
) -> None:
    game = _new_game(person_client)

    async def ask(username: str | None) -> tuple[int, str]:
        client = AsyncClient()
        if username:
            await client.alogin(username=username, password=password)
        response = await client.get(f"/play/{game.pk}/events/")
        return response.status_code, response.content.decode()

    assert async_to_sync(ask)(None) == (403, '{"error": "sign in first"}')
    assert async_to_sync(ask)(other.username) == (404, '{"error": "no such game of yours"}')
