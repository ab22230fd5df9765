"""Template tags: a person's games (their account page) and a bot's games with people (its
page), so those pages show them with one line each; and the words for a game's result."""

from __future__ import annotations

from typing import Any

from django import template

from engine import words
from engine.games import get_game
from play import selectors

register = template.Library()
LISTED = 20


@register.inclusion_tag("play/_games.html", takes_context=True)
def play_games_of(context: dict[str, Any], person: Any) -> dict[str, Any]:
    return {"games": selectors.games_of(owner=person)[:LISTED], "user": context.get("user")}


@register.inclusion_tag("play/_bot_people.html", takes_context=True)
def people_games(context: dict[str, Any], bot: Any, versions: Any = None) -> dict[str, Any]:
    """The bot's games with people; `versions`: the bot's, if the page has read them."""
    spec = get_game(bot.game)
    if not spec.has_person_table:  # no one sits at its table: the page says nothing of it
        return {"shown": False}
    ids = ([v.pk for v in versions] if versions is not None
           else list(bot.versions.values_list("pk", flat=True)))
    return {"shown": True, "partners": spec.has_partners,
            "records": selectors.people_records(version_ids=ids),
            "games": selectors.games_with_version(version_ids=ids)[:LISTED],
            "user": context.get("user"), "show_owner": True}


@register.filter
def signed_number(n: int) -> str:
    """-24 as "−24" (a real minus sign), as the table writes it (engine.words)."""
    return words.number(n)


def score_text(score: list[int]) -> str:
    """[7, -24] as "7 to −24"."""
    return words.score_text(score)


@register.simple_tag
def game_result(game: Any, seats: Any = None) -> str:
    """A finished game's result in words, the game's (its person_result): on the game's page,
    with the seats, by its players' names ("ada and north-bot v2 won, 52 to 30"); in a list
    of games, as the game words it there (its seats are prefetched by the lists)."""
    listed = seats is None
    labels = {s.seat: s.label for s in (game.seats.all() if listed else seats)}
    spec = get_game(game.game)
    names = [game.owner.username] + [labels.get(n, "?") for n in range(1, spec.seats)]
    return spec.person_result(winner=game.winner, score=game.score, names=names,
                              listed=listed)


@register.simple_tag
def rules_title(game: Any) -> str:
    """The game's rule set by its name, as people say it ("Kaiser's official rules" for
    "official"; Game.preset_title), not the preset's code (issue 43)."""
    return get_game(game.game).preset_title(game.rules)


# How a seat's fault ended a game, in words (engine.human's and engine.match's reasons).
ENDINGS = {"resign": "resigned", "timeout": "ran out of time", "crash": "stopped",
           "illegal": "made a move the rules do not allow", "protocol": "broke the protocol"}


@register.simple_tag
def game_ending(game: Any) -> str:
    """Who ended a game early and how: "resigned by you", "East resigned", "West ran out of
    time" (issue 43: not "resign, seat 0"); "" for a game played to its end."""
    if not game.forfeit_reason:
        return ""
    how = ENDINGS.get(game.forfeit_reason, game.forfeit_reason)
    if game.forfeit_seat in (0, None):
        return "resigned by you" if game.forfeit_reason == "resign" else f"you {how}"
    labels = get_game(game.game).person_seat_labels
    seat = game.forfeit_seat - 1
    who = labels[seat].split(" (")[0] if seat < len(labels) else f"seat {game.forfeit_seat}"
    return f"{who} {how}"
