"""Celery tasks of matches: thin, idempotent, each calling one service."""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from engine.faults import InfrastructureError
from kaiser_site import worker_cores  # noqa: F401 - caps a match worker's pool at its cores
from kaiser_site.worker_sandbox import defer_unless_sandboxed
from matches import models as match_models
from matches import services as match_services

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    acks_late=True,  # a worker that dies mid-match leaves the message to be delivered again
    reject_on_worker_lost=True,
    soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT,
    time_limit=settings.CELERY_TASK_TIME_LIMIT,
    max_retries=None,  # the match's attempt count in the database is the budget
)
def run_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Play one match. Safe to run twice: the database lease decides who plays, and a
    finished match is never played or counted again. A worker that cannot sandbox puts the
    task back before it claims the match, so no attempt is spent."""
    if defer_unless_sandboxed(self):
        return "deferred"
    worker = f"{self.request.hostname or 'local'}:{self.request.id or '-'}"
    hard, soft = self.request.timelimit or (None, None)
    try:
        with limits_in_thread(soft=soft, hard=hard, match_id=match_id):
            return match_services.match_play(match_id=match_id, worker=worker,
                                             release_on=(SoftTimeLimitExceeded,))
    except InfrastructureError as error:
        status = match_models.Match.objects.filter(pk=match_id).values_list("status", flat=True)
        if status and status[0] == match_models.Match.Status.QUEUED:
            countdown = min(300, 5 * 2 ** min(self.request.retries, 6))
            raise self.retry(exc=error, countdown=countdown) from None
        logger.error("match %s: %s; not retried (%s)", match_id, error, status)
        return "void"


@contextmanager
def limits_in_thread(*, soft: float | None, hard: float | None, match_id: int) -> Iterator[None]:
    """A message's time limits where Celery does not enforce them: a pool of threads (the
    strict worker's). Celery's prefork parent signals its child, whose handler raises
    SoftTimeLimitExceeded in the task; a thread gets no signal, so a timer raises the same
    exception in the task's thread (at its next Python instruction: as the handler would) and
    match_play releases the match as under prefork. No thread can be killed, so the hard limit
    is only logged; the engine's own bounds (every wait of a seat, every boot) end a match.
    A task in its process's main thread (prefork, solo) is left to Celery."""
    if soft is None or threading.current_thread() is threading.main_thread():
        yield
        return
    target, lock, armed = threading.get_ident(), threading.Lock(), [True]

    def expire() -> None:
        with lock:
            if armed[0]:
                logger.error("match %s: past its soft time limit (%s s) in a thread: "
                             "released", match_id, soft)
                _raise_in_thread(target, SoftTimeLimitExceeded)

    def stuck() -> None:
        if armed[0]:
            logger.critical("match %s: past its hard time limit (%s s) and still running in "
                            "a thread, which cannot be killed: restart this worker", match_id,
                            hard)

    timers = [threading.Timer(soft, expire)] + ([threading.Timer(hard, stuck)] if hard else [])
    for timer in timers:
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        with lock:
            armed[0] = False
            _raise_in_thread(target, None)  # one raised but not delivered yet: withdrawn
        for timer in timers:
            timer.cancel()


def _raise_in_thread(thread_id: int, exception: type[BaseException] | None) -> None:
    """CPython's PyThreadState_SetAsyncExc: `exception` raised in that thread at its next
    instruction (None withdraws one not raised yet)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception else None)


@shared_task
def matches_requeue_stale() -> dict[str, int]:
    return match_services.matches_requeue_stale()


@shared_task
def replays_prune() -> int:
    """The beat's hourly tick: drop (or archive) replays past KAISER_REPLAY_RETENTION_DAYS."""
    return match_services.replays_prune()


@shared_task
def play_stats_fold() -> int:
    """The beat's tick for the play statistics: finished matches into their versions' totals."""
    from matches.stats import play_stats_fold as fold

    return fold()
