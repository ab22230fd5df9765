"""Template tags: a person's games (their account page) and a bot's games with people (its
page), so those pages show them with one line each."""

from __future__ import annotations

from typing import Any

from django import template

from play import selectors

register = template.Library()
LISTED = 20


@register.inclusion_tag("play/_games.html", takes_context=True)
def play_games_of(context: dict[str, Any], person: Any) -> dict[str, Any]:
    return {"games": selectors.games_of(owner=person)[:LISTED], "user": context.get("user")}


@register.inclusion_tag("play/_bot_people.html", takes_context=True)
def people_games(context: dict[str, Any], bot: Any) -> dict[str, Any]:
    ids = list(bot.versions.values_list("pk", flat=True))
    return {"records": selectors.people_records(version_ids=ids),
            "games": selectors.games_with_version(version_ids=ids)[:LISTED],
            "user": context.get("user"), "show_owner": True}
