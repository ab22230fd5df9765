"""Template helpers of the pages: cards with suit symbols, small SVG charts, percentages.

The charts are drawn on the server as inline SVG (Jinja2 templates in kaiser_site/jinja2/site,
from the numbers computed here): no JavaScript, nothing to download."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.safestring import SafeString

from bots.faults import detail_clip
from engine import words
from engine.words import SUIT_SYMBOLS
from kaiser_site.fragments import fragment

register = template.Library()

RANK_NAMES = {"T": "10"}


@register.simple_tag
def card(code: str) -> SafeString:
    """One card, like AH, as a small tile with its suit symbol (hearts and diamonds red)."""
    rank, suit = code[:-1], code[-1:]
    return fragment("site/card.html", {"suit": suit, "code": code,
                                       "rank": RANK_NAMES.get(rank, rank),
                                       "symbol": SUIT_SYMBOLS.get(suit, suit)})


@register.filter
def game_part(game: Any, part: str) -> list[str]:
    """A game's own part of a page, for `{% include game|game_part:"stats_rows" %}`: the
    game's template `games/<name>/<part>.html` if it has one, else the generic
    `games/any/<part>.html` (Django's include takes the first of a list that exists). `game`
    is a game's name (a row's `game`) or an engine game."""
    name = game if isinstance(game, str) else game.name
    return [f"games/{name}/{part}.html", f"games/any/{part}.html"]


@register.filter
def game_of(name: str) -> Any:
    """The engine's game of that name (its title, rules page, ...), for the generic parts."""
    from engine.games import get_game

    return get_game(name)


@register.filter
def fault_clip(text: str) -> str:
    """A fault's detail (or a verdict quoting it) as the public sees it: bots.faults."""
    return detail_clip(text or "")


@register.filter
def check_score(summary: Any) -> str:
    """An upload's check match score in words, the bot's own games first: bots.verdicts."""
    from bots.verdicts import check_score_words

    return check_score_words(summary)


@register.filter
def number(value: float) -> str:
    """-24 as "−24", a real minus sign (engine.words, the pages' vocabulary)."""
    return words.number(value)


@register.filter
def signed(value: float) -> str:
    """A change of score: "+7", "−7", "0"."""
    return words.signed(value)


@register.filter
def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _scaled(values: Sequence[float], width: float, height: float, pad: float) -> list[str]:
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    return [f"{pad + i * step:.1f},{pad + (height - 2 * pad) * (high - v) / span:.1f}"
            for i, v in enumerate(values)]


def sparkline_data(values: Sequence[float], width: int = 80, height: int = 22
                   ) -> dict[str, Any]:
    """The rating trend for site/sparkline.svg (as `spark`): a line, green when it ends above
    where it started, red below; no line for fewer than two ratings."""
    if len(values) < 2:
        return {"points": None}
    return {"points": " ".join(_scaled(values, width, height, 2)),
            "trend": "up" if values[-1] >= values[0] else "down", "width": width,
            "height": height, "first": f"{values[0]:.0f}", "last": f"{values[-1]:.0f}"}


@register.simple_tag
def rating_chart(history: Sequence[tuple[float, int, datetime]], width: int = 640,
                 height: int = 200) -> SafeString:
    """A bot's rating after each rated match (history: (rating, version number, time)
    triples, oldest first) against time: the rating range on the left, the first and last
    times below, and a dashed line where each version started to play."""
    if len(history) < 2:
        return fragment("site/rating_chart.svg", {"c": None})
    left, right, top, bottom = 44.0, 8.0, 18.0, 20.0
    values, times = [h[0] for h in history], [h[2].timestamp() for h in history]
    low, high, start = min(values), max(values), times[0]
    vspan, tspan = (high - low) or 1.0, (times[-1] - start) or 1.0

    def x(t: float) -> float:
        return left + (width - left - right) * (t - start) / tspan

    def y(v: float) -> float:
        return top + (height - top - bottom) * (high - v) / vspan

    starts = [i for i in range(len(history)) if i == 0 or history[i][1] != history[i - 1][1]]
    return fragment("site/rating_chart.svg", {"c": {
        "w": width, "h": height, "n": len(values), "first": f"{values[0]:.0f}",
        "last": f"{values[-1]:.0f}", "high": f"{high:.0f}", "low": f"{low:.0f}",
        "high_y": top + 4, "low_y": height - bottom, "left": left, "t1_x": width - right,
        "time_y": height - 4, "t0": _when(history[0][2], tspan),
        "t1": _when(history[-1][2], tspan), "top": top, "bottom_y": height - bottom,
        "points": " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in zip(times, values, strict=True)),
        "marks": [{"x": f"{x(times[i]):.1f}", "number": history[i][1],
                   "when": _when(history[i][2], tspan)} for i in starts],
    }})


def _when(moment: datetime, span_seconds: float) -> str:
    """A time on the chart's axis: with the hour when the chart spans less than two days."""
    local = timezone.localtime(moment)
    return f"{local:%Y-%m-%d %H:%M}" if span_seconds < 2 * 86400 else f"{local:%Y-%m-%d}"
