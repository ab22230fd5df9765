"""Reads for bots and versions."""

from __future__ import annotations

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from bots.models import Bot, BotVersion


def bot_list() -> QuerySet[Bot]:
    return Bot.objects.select_related("owner").annotate(
        version_count=Count("versions"),
        active_count=Count("versions", filter=Q(versions__status=BotVersion.Status.ACTIVE)),
    )


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.select_related("bot").defer("check_replay").order_by("-number")


def bot_version_list() -> QuerySet[BotVersion]:
    return BotVersion.objects.select_related("bot", "bot__owner").defer("check_replay")


def bot_active_version(*, bot: Bot) -> BotVersion | None:
    """The version that plays: the newest active one (None if the bot is retired or has none)."""
    if bot.retired:
        return None
    return (
        bot.versions.filter(status=BotVersion.Status.ACTIVE)
        .defer("check_replay")
        .order_by("-number")
        .first()
    )


def active_versions() -> QuerySet[BotVersion]:
    """The playing version of every bot that is not retired: one per bot, in one query."""
    newer = BotVersion.objects.filter(
        bot=OuterRef("bot"), status=BotVersion.Status.ACTIVE, number__gt=OuterRef("number")
    )
    return (
        BotVersion.objects.filter(bot__retired=False, status=BotVersion.Status.ACTIVE)
        .exclude(Exists(newer))
        .select_related("bot", "bot__owner")
        .defer("check_replay", "check_stderr")
    )
