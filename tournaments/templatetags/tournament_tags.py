"""The tournaments' parts of other apps' pages: the tournaments open for entry (home page) and
a bot's tournaments (its page), each with an "Enter" form for the author's own bots."""

from __future__ import annotations

from typing import Any

from django import template

from bots.models import Bot
from bots.selectors import bot_active_version
from tournaments import selectors as tournament_selectors

register = template.Library()


@register.inclusion_tag("tournaments/_open_tournaments.html", takes_context=True)
def open_tournaments(context: template.Context) -> dict[str, Any]:
    """The tournaments open for entry, with an Enter form listing the user's bots not yet
    entered in each."""
    request = context.get("request")
    tournaments = tournament_selectors.tournaments_open()
    mine = tournament_selectors.enterable_versions(user=getattr(request, "user", None))
    entered = tournament_selectors.entered_bot_ids(tournaments=tournaments) if mine else {}
    rows = [(t, [v for v in mine if v.bot_id not in entered.get(t.pk, set())
                 and v.bot.game == t.game]) for t in tournaments]
    return {"rows": rows, "has_bots": bool(mine), "request": request,
            "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("tournaments/_bot_tournaments.html", takes_context=True)
def bot_tournaments(context: template.Context, bot: Bot) -> dict[str, Any]:
    """A bot's page: the tournaments open for entry (an Enter button for its owner) and the
    tournaments it played."""
    request = context.get("request")
    user = getattr(request, "user", None)
    tournaments = [t for t in tournament_selectors.tournaments_open() if t.game == bot.game]
    entered = tournament_selectors.entered_bot_ids(tournaments=tournaments)
    can_enter = (bool(tournaments) and bot.is_owned_by(user) and not bot.retired
                 and bot_active_version(bot=bot) is not None)
    return {"bot": bot, "open": [(t, bot.pk in entered.get(t.pk, set())) for t in tournaments],
            "can_enter": can_enter,
            "history": tournament_selectors.bot_tournament_history(bot=bot),
            "request": request, "csrf_token": context.get("csrf_token")}
