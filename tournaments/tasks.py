"""Celery tasks of tournaments, run by the beat: thin, each calling one service."""

from __future__ import annotations

from celery import shared_task

from kaiser_site import worker_cores  # noqa: F401 - caps a match worker's pool at its cores
from tournaments import services


@shared_task
def tournaments_start_due() -> dict[str, int]:
    """The beat's tick for open entry: start the tournaments whose entry deadline passed."""
    return services.tournaments_start_due()
