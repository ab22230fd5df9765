"""Reads for bots and versions."""

from __future__ import annotations

import re

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from bots.models import Bot, BotVersion


def bot_list() -> QuerySet[Bot]:
    """Bots with their counts of versions and of checked versions, and the number of the
    version that plays (null: none; a retired bot's is the one it played)."""
    return with_playing_version(Bot.objects.select_related("owner").annotate(
        versions_count=Count("versions"),
        active_count=Count("versions", filter=Q(versions__status=BotVersion.Status.ACTIVE)),
    ))


def with_playing_version(bots: QuerySet[Bot]) -> QuerySet[Bot]:
    """Annotates playing_id and playing_number: the chosen version, else the newest checked."""
    newest = BotVersion.objects.filter(
        bot=OuterRef("pk"), status=BotVersion.Status.ACTIVE).order_by("-number")
    chosen = BotVersion.objects.filter(pk=OuterRef("playing_version_id"))
    return bots.annotate(
        playing_id=Coalesce(F("playing_version_id"), Subquery(newest.values("pk")[:1])),
        playing_number=Coalesce(Subquery(chosen.values("number")[:1]),
                                Subquery(newest.values("number")[:1])),
    )


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.select_related("bot").defer("check_replay").order_by("-number")


# bots.runner.RecordingFactory.stderr_text heads each seat's part with this line.
# (and "--- seat slot N ---" before issue 43, in stored checks).
SEAT_HEADER = re.compile(r"^--- (?:seat slot|its seat) \d+ ---$", re.MULTILINE)


def bot_version_stderr_tail(*, version: BotVersion, lines: int = 6) -> str:
    """The last lines of the first seat's stderr in the version's check: where a traceback
    ends, with its error (a SyntaxError's line and caret). Both seats run the same program and
    usually fail alike, so one seat's is enough; the whole stderr stays on the page, folded."""
    seats = [part.strip("\n") for part in SEAT_HEADER.split(version.check_stderr or "")]
    first = next((part for part in seats if part.strip()), "")
    return "\n".join(first.splitlines()[-lines:])


def bot_version_list() -> QuerySet[BotVersion]:
    return BotVersion.objects.select_related("bot", "bot__owner").defer("check_replay")


def bot_active_version(*, bot: Bot) -> BotVersion | None:
    """The version that plays: the one the owner chose (bot.playing_version), else the newest
    checked (active) one; None if the bot is retired or has none."""
    if bot.retired:
        return None
    return version_playing(bot=bot, versions=list(
        bot.versions.filter(status=BotVersion.Status.ACTIVE).defer("check_replay")))


def version_playing(*, bot: Bot, versions: list[BotVersion]) -> BotVersion | None:
    """bot_active_version's rule over the bot's `versions` already read (a page that shows
    them all asks no second query)."""
    if bot.retired:
        return None
    checked = [v for v in versions if v.status == BotVersion.Status.ACTIVE]
    chosen = next((v for v in checked if v.pk == bot.playing_version_id), None)
    return chosen or max(checked, key=lambda v: v.number, default=None)


def active_versions() -> QuerySet[BotVersion]:
    """The playing version of every bot that is not retired (bot_active_version's rule): one
    per bot, in one query."""
    newer = BotVersion.objects.filter(
        bot=OuterRef("bot"), status=BotVersion.Status.ACTIVE, number__gt=OuterRef("number")
    )
    chosen = Q(bot__playing_version__isnull=False, bot__playing_version=F("pk"))
    newest_unless_chosen = Q(bot__playing_version__isnull=True) & ~Q(Exists(newer))
    return (
        BotVersion.objects.filter(bot__retired=False, status=BotVersion.Status.ACTIVE)
        .filter(chosen | newest_unless_chosen)
        .select_related("bot", "bot__owner")
        .defer("check_replay", "check_stderr")
    )
