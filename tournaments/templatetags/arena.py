"""Template helpers of the pages: cards with suit symbols, small SVG charts, percentages.

The charts are drawn on the server as inline SVG: no JavaScript, nothing to download."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from bots.faults import detail_clip

register = template.Library()

SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
RANK_NAMES = {"T": "10"}


@register.simple_tag
def card(code: str) -> SafeString:
    """One card, like AH, as a small tile with its suit symbol (hearts and diamonds red)."""
    rank, suit = code[:-1], code[-1:]
    return format_html('<span class="card suit-{}" data-card="{}">{}{}</span>', suit, code,
                       RANK_NAMES.get(rank, rank), SUITS.get(suit, suit))


@register.filter
def fault_clip(text: str) -> str:
    """A fault's detail (or a verdict quoting it) as the public sees it: bots.faults."""
    return detail_clip(text or "")


@register.filter
def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _scaled(values: Sequence[float], width: float, height: float, pad: float) -> list[str]:
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    return [f"{pad + i * step:.1f},{pad + (height - 2 * pad) * (high - v) / span:.1f}"
            for i, v in enumerate(values)]


@register.simple_tag
def sparkline(values: Sequence[float], width: int = 80, height: int = 22) -> SafeString:
    """The rating trend: a line, green when it ends above where it started, red below."""
    if len(values) < 2:
        return mark_safe('<span class="muted">–</span>')
    points = " ".join(_scaled(values, width, height, 2))
    trend = "up" if values[-1] >= values[0] else "down"
    return format_html(
        '<svg class="spark spark-{}" width="{}" height="{}" viewBox="0 0 {} {}" role="img" '
        'aria-label="rating from {} to {}"><polyline points="{}"/></svg>',
        trend, width, height, width, height, f"{values[0]:.0f}", f"{values[-1]:.0f}", points)


@register.simple_tag
def rating_chart(history: Sequence[tuple[float, Any]], width: int = 640,
                 height: int = 200) -> SafeString:
    """A bot's rating after each rated match (history: (rating, version number) pairs), with
    its range on the left and a dot where a new version started."""
    if len(history) < 2:
        return mark_safe('<p class="empty">Not enough rated matches for a chart yet.</p>')
    values = [r for r, _ in history]
    pad = 8.0
    points = _scaled(values, width, height, pad)
    dots = format_html_join(
        "", '<circle cx="{}" cy="{}" r="3"><title>version {}</title></circle>',
        ((*points[i].split(","), history[i][1]) for i in range(1, len(history))
         if history[i][1] != history[i - 1][1]))
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" preserveAspectRatio="none" role="img" '
        'aria-label="rating history: {n} rated matches, from {first} to {last}">'
        '<text x="4" y="14">{high}</text><text x="4" y="{bottom}">{low}</text>'
        '<polyline points="{points}"/>{dots}</svg>',
        w=width, h=height, n=len(values), first=f"{values[0]:.0f}", last=f"{values[-1]:.0f}",
        high=f"{max(values):.0f}", low=f"{min(values):.0f}", bottom=height - 4,
        points=" ".join(points), dots=dots)
