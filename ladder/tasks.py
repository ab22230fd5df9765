"""Celery tasks of the ladder, run by the beat: thin, each calling one service."""

from __future__ import annotations

from celery import shared_task

from kaiser_site import worker_cores  # noqa: F401 - caps a match worker's pool at its cores
from ladder import services


@shared_task
def ladder_schedule() -> int:
    return services.ladder_schedule()


@shared_task
def ladder_fits_refresh() -> int:
    """The beat's tick for the fitted ratings: refit the ladders whose results changed."""
    return services.ladder_fits_refresh()
