"""Celery tasks of matches: thin, idempotent, each calling one service."""

from __future__ import annotations

import logging

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
    try:
        return match_services.match_play(match_id=match_id, worker=worker,
                                   release_on=(SoftTimeLimitExceeded,))
    except InfrastructureError as error:
        status = match_models.Match.objects.filter(pk=match_id).values_list("status", flat=True)
        if status and status[0] == match_models.Match.Status.QUEUED:
            countdown = min(300, 5 * 2 ** min(self.request.retries, 6))
            raise self.retry(exc=error, countdown=countdown) from None
        logger.error("match %s: %s; not retried (%s)", match_id, error, status)
        return "void"


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
