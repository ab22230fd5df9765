"""A worker that plays matches runs no more of them at once than it has cores (issue 19).

Only the seat on move runs in a match (engine.botproc stops the others), so a match needs one
core at a time; more matches in flight than cores and their seats on move wait for each
other. The bots' clock counts CPU time (engine.clock), so that no longer costs a bot its
time, but it slows every match and brings the wall-clock backstop nearer. So a worker that
consumes the queue of matches and upload checks gets a pool of min(requested, cores)
processes, and says so when it cuts. KAISER_WORKER_CAP_TO_CORES=0 keeps the requested number.

The play worker (games against people, -Q play) is not capped: a game waits for its person
most of the time with every bot seat stopped (botproc.seats_rest), and it is unrated. Nor is
the strict worker (-Q KAISER_STRICT_QUEUE alone, a pool of threads): a strict match sleeps
through most of every slot of its decisions (engine.slots), so one core serves many at once
(bench/strict_cost.py measures how many). A worker that consumes the strict queue beside the
others is capped like any match worker.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from celery import signals

from engine.clock import usable_cores
from kaiser_site.worker_sandbox import gated_queues

logger = logging.getLogger(__name__)


def concurrency_for(*, requested: int, cores: int) -> int:
    """The pool size of a worker that plays matches."""
    return max(1, min(requested, cores))


def strict_only(queues: list[str]) -> bool:
    """Whether these queues are the strict worker's queue alone (KAISER_STRICT_QUEUE)."""
    from django.conf import settings

    strict = settings.KAISER_STRICT_QUEUE
    return bool(strict) and set(queues) == {strict}


def match_send_options(*, strict_ms: int, games: int) -> dict[str, Any]:
    """How run_match is sent for a match (apply_async's options). A strict match waits out
    every decision's slot, so it goes to KAISER_STRICT_QUEUE when there is one (a worker that
    plays many at once: docs/operations.md, "Strict time"), with time limits that fit its
    slots: the task's own (what a match needs besides its slots: boots, storing) plus
    games x KAISER_STRICT_SLOTS_A_GAME x strict_ms, so no whole game is ever cut by them."""
    from django.conf import settings

    queue = getattr(settings, "KAISER_MATCH_QUEUE", None)
    if not strict_ms:
        return {"queue": queue}
    slots_s = math.ceil(games * settings.KAISER_STRICT_SLOTS_A_GAME * strict_ms / 1000)
    return {"queue": settings.KAISER_STRICT_QUEUE or queue,
            "soft_time_limit": settings.CELERY_TASK_SOFT_TIME_LIMIT + slots_s,
            "time_limit": settings.CELERY_TASK_TIME_LIMIT + slots_s}


@signals.worker_init.connect
def _cap_to_cores(sender: Any = None, **kwargs: Any) -> None:
    """Before the pool starts: the queues are chosen (-Q), the pool size not yet used."""
    from django.conf import settings

    worker = sender
    consumed = list(worker.app.amqp.queues.consume_from)
    gated = gated_queues(worker.app, consumed)
    if not settings.KAISER_WORKER_CAP_TO_CORES or not gated or strict_only(gated):
        return
    requested, cores = int(worker.concurrency), usable_cores()
    worker.concurrency = concurrency_for(requested=requested, cores=cores)
    if worker.concurrency < requested:
        logger.warning("%s: concurrency capped at %d (requested %d): it plays matches, and "
                       "this machine gives it %d cores (KAISER_WORKER_CAP_TO_CORES=0 keeps "
                       "the requested number)", worker.hostname, worker.concurrency, requested,
                       cores)
