"""Celery tasks of the play app. game_play runs on the play queue (its own worker), so a game
that waits minutes for a person never holds a ladder worker."""

from __future__ import annotations

from celery import shared_task

from play import services


@shared_task(
    bind=True,
    # Acknowledged on receipt: a game waits on a person for longer than any broker's
    # redelivery timeout, and a game whose worker died is void (games_void_stale), not replayed.
    acks_late=False,
    soft_time_limit=None,
    time_limit=None,
)
def game_play(self, game_id: int) -> str:  # type: ignore[no-untyped-def]
    worker = f"{self.request.hostname or 'local'}:{self.request.id or '-'}"
    return services.game_play(game_id=game_id, worker=worker)


@shared_task
def games_void_stale() -> int:
    return services.games_void_stale()
