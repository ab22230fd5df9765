"""Celery tasks of the bots app: thin wrappers that take ids and call one service."""

from __future__ import annotations

import logging

from celery import shared_task

from bots import services
from engine.faults import InfrastructureError
from kaiser_site.worker_sandbox import defer_unless_sandboxed

logger = logging.getLogger(__name__)
CHECK_RETRIES = 5


@shared_task(bind=True, max_retries=CHECK_RETRIES, acks_late=True)
def bot_upload_check(self, version_id: int) -> str:  # type: ignore[no-untyped-def]
    """Check an uploaded version. A sandbox failure is retried, never held against the bot;
    a worker that cannot sandbox puts the check back without counting a retry."""
    if defer_unless_sandboxed(self):
        return "deferred"
    try:
        version = services.bot_upload_check(version_id=version_id)
    except InfrastructureError as error:
        if self.request.retries >= CHECK_RETRIES:
            logger.error("check of version %s postponed: %s", version_id, error)
            services.bot_upload_check_postpone(version_id=version_id, reason=str(error))
            return "postponed"
        raise self.retry(exc=error, countdown=min(300, 10 * 2**self.request.retries)) from None
    return version.status if version else "already decided"


@shared_task
def bot_versions_requeue_stale() -> int:
    return services.bot_versions_requeue_stale()
