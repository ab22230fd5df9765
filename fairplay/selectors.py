"""Reads of fair play: each version's newest check, for the staff report and its owner."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import OuterRef, QuerySet, Subquery

from bots.models import Bot
from engine.fairplay import SPREAD_BITS
from fairplay.models import FairPlayCheck


@dataclass(frozen=True)
class Report:
    flagged: list[FairPlayCheck]  # widest spread first
    checked: list[FairPlayCheck]  # every version's newest check, newest first


def latest_checks() -> QuerySet[FairPlayCheck]:
    """Each checked version's newest check, with its bot."""
    newest = (FairPlayCheck.objects.filter(version_id=OuterRef("version_id"))
              .order_by("-checked", "-id").values("pk")[:1])
    return (FairPlayCheck.objects.filter(pk=Subquery(newest))
            .select_related("version__bot__owner").order_by("-checked", "-id"))


def fairplay_report() -> Report:
    """The staff report: the versions whose newest check flagged them, and every version's
    newest check."""
    checked = list(latest_checks())
    flagged = sorted((c for c in checked if c.flagged), key=lambda c: -(c.bits or 0.0))
    return Report(flagged=flagged, checked=checked)


def bot_fairplay_check(*, bot: Bot) -> FairPlayCheck | None:
    """The newest check of the bot's versions (the one its owner reads on the bot page)."""
    return (FairPlayCheck.objects.filter(version__bot=bot).select_related("version")
            .order_by("-checked", "-id").first())


def spread_bits() -> float:
    """The spread (bits a move) at which the detector flags a version."""
    return float(SPREAD_BITS)
