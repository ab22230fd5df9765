"""The play app's messages through Redis, when KAISER_PLAY_REDIS_URL is set.

Two directions, one game each:
- to the worker: a wake-up list (`<prefix>:<game>:wake`). The web pushes "move:N" once the
  person's move N is stored (the Move row stays the record) or "resign"; the worker waits on
  the list with a blocking pop (BLPOP), so it neither polls the database nor sleeps.
- to the page: a pub/sub channel (`<prefix>:<game>:state`) carrying the state/ answer each
  time the worker publishes (play.services.Channel: the moves up to the person's turn
  together); the event stream (play.views.game_events, server-sent events on the ASGI app)
  forwards it to the page.

A message lost here is not a move lost: the worker still looks at the database at every
heartbeat, and the stream re-reads its game every KAISER_PLAY_STREAM_CHECK_SECONDS.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator
from typing import Any

import redis
import redis.asyncio
from django.conf import settings

logger = logging.getLogger(__name__)

WAKE_TTL_SECONDS = 24 * 3600  # a wake-up list no worker reads (a game that ended) goes away
SUBSCRIBE_SECONDS = 5  # Redis confirms a subscription at once; a stream fails after this
_clients: dict[str, redis.Redis] = {}


def enabled() -> bool:
    return bool(settings.KAISER_PLAY_REDIS_URL)


def _key(game_id: int, kind: str) -> str:
    return f"{settings.KAISER_PLAY_PUSH_PREFIX}:{game_id}:{kind}"


def _client() -> redis.Redis:
    """One client (a connection pool, shared by threads) per URL and process."""
    url = settings.KAISER_PLAY_REDIS_URL
    if url not in _clients:
        # No socket timeout: a blocking pop holds its connection for its whole timeout. The
        # name shows in Redis's CLIENT LIST which process waits there.
        _clients[url] = redis.Redis.from_url(url, socket_connect_timeout=5,
                                             health_check_interval=30,
                                             client_name=f"kaiser-play-{os.getpid()}")
    return _clients[url]


def wake(game_id: int, message: str) -> None:
    """Tell the worker playing `game_id` to look (a move stored, a resignation). Best effort:
    a failure is logged, and the worker's heartbeat finds the move in the database anyway."""
    if not enabled():
        return
    try:
        pipe = _client().pipeline()
        pipe.rpush(_key(game_id, "wake"), message)
        pipe.expire(_key(game_id, "wake"), WAKE_TTL_SECONDS)
        pipe.execute()
    except redis.RedisError as error:
        logger.warning("play: no wake-up for game %s (%s): %s", game_id, message, error)


def wait_wake(game_id: int, *, timeout: float) -> str | None:
    """The next wake-up for `game_id`, or None after `timeout` seconds. Raises RedisError
    when Redis cannot be reached (the caller falls back to the database)."""
    popped = _client().blpop([_key(game_id, "wake")], timeout=max(timeout, 0.01))
    return None if popped is None else popped[1].decode()


def forget(game_id: int) -> None:
    """The game is over: drop its wake-up list."""
    if enabled():
        try:
            _client().delete(_key(game_id, "wake"))
        except redis.RedisError as error:
            logger.warning("play: could not drop the wake-up list of game %s: %s", game_id, error)


def publish(game_id: int, message: dict[str, Any]) -> None:
    """Send the state/ answer `message` to every page open on the game. Best effort (see the
    module's docstring)."""
    if not enabled():
        return
    try:
        _client().publish(_key(game_id, "state"), json.dumps(message, separators=(",", ":")))
    except redis.RedisError as error:
        logger.warning("play: could not publish game %s's state: %s", game_id, error)


async def subscribe(game_id: int) -> AsyncIterator[str | None]:
    """The messages published on `game_id`, as JSON text, once subscribed (the first item is
    None: subscribed, so that the caller reads the current state only then and misses
    nothing); None also after KAISER_PLAY_STREAM_CHECK_SECONDS without a message."""
    client = redis.asyncio.Redis.from_url(settings.KAISER_PLAY_REDIS_URL,
                                          socket_connect_timeout=5)
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(_key(game_id, "state"))
        # Redis's confirmation first: only then is every later message sure to come here.
        # (Read lazily, it came as a None of its own, and the caller read the record a second
        # time, which could jump past messages still on their way.)
        confirmed = await pubsub.get_message(timeout=SUBSCRIBE_SECONDS)
        if confirmed is None or confirmed["type"] != "subscribe":
            raise redis.RedisError(f"no subscription to game {game_id}'s state: {confirmed}")
        yield None
        check = settings.KAISER_PLAY_STREAM_CHECK_SECONDS
        while True:
            message = await pubsub.get_message(timeout=check)
            if message is None:
                yield None
            elif message["type"] == "message":
                yield message["data"].decode()
    finally:
        await pubsub.aclose()
        await client.aclose()
