"""A tournament's part when one of its matches ends (matches.signals; connected in
TournamentsConfig.ready)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from bots import signals as bot_signals
from bots.models import Bot
from matches import signals
from tournaments import services


@receiver(signals.match_ended, dispatch_uid="tournaments.advance")
def advance(sender: Any, *, tournament_id: int | None, **_: Any) -> None:
    """The next round when this one is complete, in the transaction that ended the match."""
    if tournament_id:
        services.tournament_advance(tournament_id=tournament_id)


@receiver(bot_signals.bot_retired, dispatch_uid="tournaments.withdraw")
def withdraw(sender: Any, *, bot: Bot, **_: Any) -> None:
    """A retired bot's tournament matches become walkovers."""
    services.tournament_entries_withdraw(bot_id=bot.pk)
