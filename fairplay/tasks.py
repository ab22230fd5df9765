"""Celery tasks of fair play, run by the beat: thin, each calling one service."""

from __future__ import annotations

from celery import shared_task

from fairplay import services


@shared_task
def fairplay_check_recent() -> int:
    """Check again the versions with matches finished since the last run (idempotent: a
    version whose recent matches were all seen is skipped)."""
    return services.fairplay_check_recent()
