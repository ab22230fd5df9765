"""The push (play.push) with a real Redis: the person's move wakes the worker without its
polling the database, and the page's event stream (events/, on the ASGI handler) carries the
current state and then each one the worker publishes. Without Redis, or on a WSGI server, the
stream answers 204 and the page polls."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection
from django.test import AsyncClient, Client

from play import push, services
from play.models import Table
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


def _pushed_game(person_client: Client, push_redis: str,
                 settings: Any) -> tuple[redis.Redis, Table, CountingGame]:
    """A client of the push Redis, and a new game played by a counting worker, with no
    heartbeat within the test's waits."""
    settings.KAISER_PLAY_HEARTBEAT_SECONDS = 30
    game = _new_game(person_client)
    return redis.Redis.from_url(push_redis), game, CountingGame(game.pk)


@contextlib.contextmanager
def _resigned_after(game: Table, worker: CountingGame) -> Iterator[None]:
    """Whatever the test asserted, the person resigns at its end and the worker finishes."""
    try:
        yield
    finally:
        Table.objects.filter(pk=game.pk, status=Table.Status.RUNNING).update(
            resign_requested=True)
        push.wake(game.pk, "resign")
        worker.thread.join(30)


def test_the_worker_waits_on_redis_without_a_query_and_wakes_at_once_on_the_move(
    person_client: Client, push_redis: str, settings: Any
) -> None:
    client, game, worker = _pushed_game(person_client, push_redis, settings)
    with _resigned_after(game, worker):
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
    game.refresh_from_db()
    assert worker.outcome == "finished" and game.forfeit_reason == "resign"


def test_a_persons_turn_costs_the_worker_two_queries_however_many_bots_answer(
    person_client: Client, push_redis: str, settings: Any
) -> None:
    client, game, worker = _pushed_game(person_client, push_redis, settings)
    with _resigned_after(game, worker):
        for _ in range(3):
            game = wait_view(game)
            _wait_blocked(client, idle=0)
            before, seq = worker.queries, game.seq
            assert _post(person_client, game, {"seq": seq, "action": _first_legal(game.view)}
                         ).status_code == 200
            game = wait_view(game, seq=seq + 1)
            assert game.is_open
            _wait_blocked(client, idle=0)  # waiting for the person again
            # The move read once (woken by Redis, no look before the wait), and one write of
            # the view for the person's move and every bot's answer after it.
            assert worker.queries - before == 2, (worker.queries - before, game.seq - seq)
    assert worker.outcome == "finished"


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


def _events_after_a_move(game: Table, username: str, password: str,
                         person_client: Client) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Follow events/: the current state (the person to move), then the person's first legal
    move posted; the events that follow, until the person is to move again or the game
    ends."""

    async def follow() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        client = AsyncClient()
        await client.alogin(username=username, password=password)
        response = await client.get(f"/play/{game.pk}/events/")
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        stream = _events(response.streaming_content)
        first = await anext(stream)  # the current state, from the record
        # The person moves (a thread: the view is sync); the bots' moves come pushed.
        mover = threading.Thread(target=lambda: _post(
            person_client, game, {"seq": first["seq"], "action": _first_legal(first["view"])}))
        mover.start()
        pushed: list[dict[str, Any]] = []
        async for event in stream:
            pushed.append(event)
            if event["view"]["your_turn"] or event["status"] != "running":
                break
        mover.join()
        await stream.aclose()
        return first, pushed

    return async_to_sync(follow)()


def _moves_after(seq: int, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every move after move `seq` the events list (each in its first event's `recent`)."""
    moves: dict[int, dict[str, Any]] = {}
    for event in events:
        for move in event["view"]["recent"]:
            if move["seq"] > seq:
                moves.setdefault(move["seq"], move)
    return [moves[n] for n in sorted(moves)]


def test_the_event_stream_sends_the_state_then_the_moves_up_to_the_persons_next_turn(
    person_client: Client, push_redis: str, owner: Any, password: str, play_game: Any
) -> None:
    game = _new_game(person_client)
    worker = play_game(game)
    wait_view(game)
    first, pushed = _events_after_a_move(game, owner.username, password, person_client)
    seq = first["seq"]
    assert first["view"]["your_turn"] and first["status"] == "running"
    # Three built-in players answer at once: one event brings the person's own move and every
    # bot's move after it, up to the person's next turn; none shows a bot about to move.
    assert len(pushed) == 1, [(e["seq"], e["view"]["seat"]) for e in pushed]
    event = pushed[0]
    assert event["view"]["your_turn"] and event["seq"] > seq + 1
    moves = _moves_after(seq, pushed)
    assert [m["seq"] for m in moves] == list(range(seq + 1, event["seq"] + 1))
    assert moves[0]["seat"] == 0 and all(m["seat"] != 0 for m in moves[1:])
    assert event["view"]["last_move"] == {k: moves[-1][k] for k in ("seat", "decision", "action")}
    # Each move keeps the time it was made, in the order made, none after the event was sent.
    stamps = [m["at"] for m in moves]
    assert stamps == sorted(stamps) and stamps[-1] <= event["view"]["at"] <= event["now"]
    # The record (state/, what a polling page reads) is the same state.
    assert person_client.get(f"/play/{game.pk}/state/").json()["view"] == event["view"]
    Table.objects.filter(pk=game.pk).update(resign_requested=True)
    push.wake(game.pk, "resign")
    assert worker.join() == "finished"


def test_a_bot_that_may_think_is_shown_to_move_before_it_is_asked(
    person_client: Client, push_redis: str, owner: Any, password: str, play_game: Any
) -> None:
    # The partner searches (Monte Carlo): the page sees the table as the partner is to move,
    # not only once it has answered; the instant players' moves before it come together.
    game = _new_game(person_client, seats=["builtin:random", "builtin:mc", "builtin:random"])
    worker = play_game(game)
    shown_to_move = []
    for _ in range(4):  # a few of the person's turns: the partner moves after some of them
        game = wait_view(game)
        if not game.is_open:
            break
        first, pushed = _events_after_a_move(game, owner.username, password, person_client)
        moves = _moves_after(first["seq"], pushed)
        assert [m["seq"] for m in moves] == list(range(first["seq"] + 1, pushed[-1]["seq"] + 1))
        waits = [e["view"]["seat"] for e in pushed
                 if e["status"] == "running" and not e["view"]["your_turn"]
                 and not e["view"]["over"]]
        assert set(waits) <= {2}, waits  # only ever before the searching seat
        shown_to_move += waits
        if 2 in {m["seat"] for m in moves}:
            assert waits, "the partner moved, but the page never saw it was to move"
    assert shown_to_move
    Table.objects.filter(pk=game.pk, status=Table.Status.RUNNING).update(resign_requested=True)
    push.wake(game.pk, "resign")
    assert worker.join() in ("finished", "void")


def test_the_stream_reads_the_record_once_subscribed_then_sends_what_is_published(
    person_client: Client, push_redis: str, owner: Any, password: str
) -> None:
    game = _new_game(person_client)  # no worker: this test writes and publishes its states
    Table.objects.filter(pk=game.pk).update(status=Table.Status.RUNNING, seq=3,
                                           view={"seq": 3, "your_turn": False})

    async def follow() -> list[dict[str, Any]]:
        client = AsyncClient()
        await client.alogin(username=owner.username, password=password)
        response = await client.get(f"/play/{game.pk}/events/")
        stream = _events(response.streaming_content)
        seen = [await anext(stream)]  # the record, read once subscribed
        # The record moves on (seq 9) while the messages of seq 4 and 5 are on their way:
        # the stream sends those, in order, not the record again.
        await sync_to_async(Table.objects.filter(pk=game.pk).update)(
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
