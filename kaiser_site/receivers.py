"""The shared pages' part when a match ends (matches.signals; connected in
KaiserSiteConfig.ready): the generations of the pages it shows on move
(kaiser_site.page_cache), in the transaction that stores the result and again once it
commits."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from kaiser_site.page_cache import pages_changed
from matches import signals
from matches.models import Match
from matches.services import matches_pages_changed


@receiver(signals.match_finished, dispatch_uid="kaiser_site.pages_finished")
def match_finished(sender: Any, *, match: Match, **_: Any) -> None:
    """Its page, its bots' pages, the match lists and the leaderboards (ratings, the latest
    matches)."""
    also = ("board", "tournaments") if match.tournament_id else ("board",)
    matches_pages_changed([match.pk], *also)


@receiver(signals.match_ended, dispatch_uid="kaiser_site.pages_ended")
def match_ended(sender: Any, *, tournament_id: int | None = None, **_: Any) -> None:
    """A tournament's match: its progress on the tournament list."""
    if tournament_id:
        pages_changed("tournaments")
