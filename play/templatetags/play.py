"""Template tags: a person's games (their account page) and a bot's games with people (its
page), so those pages show them with one line each; and the words for a game's result."""

from __future__ import annotations

from typing import Any

from django import template

from engine import words
from play import selectors

register = template.Library()
LISTED = 20


@register.inclusion_tag("play/_games.html", takes_context=True)
def play_games_of(context: dict[str, Any], person: Any) -> dict[str, Any]:
    return {"games": selectors.games_of(owner=person)[:LISTED], "user": context.get("user")}


@register.inclusion_tag("play/_bot_people.html", takes_context=True)
def people_games(context: dict[str, Any], bot: Any, versions: Any = None) -> dict[str, Any]:
    """The bot's games with people; `versions`: the bot's, if the page has read them."""
    ids = ([v.pk for v in versions] if versions is not None
           else list(bot.versions.values_list("pk", flat=True)))
    return {"records": selectors.people_records(version_ids=ids),
            "games": selectors.games_with_version(version_ids=ids)[:LISTED],
            "user": context.get("user"), "show_owner": True}


@register.filter
def signed_number(n: int) -> str:
    """-24 as "−24" (a real minus sign), as the table writes it (engine.words)."""
    return words.number(n)


def score_text(score: list[int]) -> str:
    """[7, -24] as "7 to −24"."""
    return words.score_text(score)


def result_text(*, winner: int | None, score: list[int], teams: tuple[str, str]) -> str:
    """"ada's team won, 52 to 30": the winner's score first; "drawn, 40 to 40"."""
    if winner is None:
        return f"drawn, {score_text(score)}"
    return f"{teams[winner]} won, {score_text([score[winner], score[1 - winner]])}"


@register.simple_tag
def game_result(game: Any, seats: Any = None) -> str:
    """A finished game's result in words: the teams by their players' names when the seats
    are given ("ada and north-bot v2 won, 52 to 30"), else by the person's name."""
    person = game.owner.username
    if game.game == "sergeant-major":
        return sm_result_text(game, person, seats)
    if seats is None:
        teams = (f"{person}'s team", f"{person}'s opponents")
    else:
        label = {s.seat: s.label for s in seats}
        teams = (f"{person} and {label.get(2, '?')}",
                 f"{label.get(1, '?')} and {label.get(3, '?')}")
    return result_text(winner=game.winner, score=game.score, teams=teams)


def sm_result_text(game: Any, person: str, seats: Any) -> str:
    """A Sergeant Major game's result: "ada won (17, −6, −11)", "greedy won (...)" (by seat:
    the person, West, East), or "no outright winner (...)" when the point was shared."""
    if seats is None:
        seats = list(game.seats.all())
    names = [person] + [s.label for s in sorted(seats, key=lambda s: s.seat)]
    scores = ", ".join(signed_number(n) for n in game.score)
    if game.winner is None:
        return f"no outright winner ({scores})"
    return f"{names[game.winner]} won ({scores})"
