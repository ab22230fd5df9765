"""The Jinja2 side of the pages: the fragments that repeat many times (match rows, standings,
crosstables, brackets, charts).

Pages are Django templates. A Django template loop cost about 0.1 ms a row, most of a long
list's time, so the repeated rows are Jinja2 templates (Django's Jinja2 backend, autoescaped:
every text from the database is escaped by Jinja2, none by hand), in each app's `jinja2/`
folder, rendered by `fragment` and placed into the Django page as they are.

Rows are dicts, and the hot templates read them by key, `m['id']`: Jinja2's `m.id` tries an
attribute first, and the failed lookup of each value cost more than the rest of the row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.template import engines
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from jinja2 import Environment
from markupsafe import Markup

from kaiser_site.ago import ago_filter, ago_phrase_filter


class Links:
    """The URLs the rows link to, from the URL conf: reverse() once per name, not per row.

    A row's link is the collection's prefix and the id: `{{ links.matches }}{{ m['id'] }}/`
    (the prefixes are Markup, printed as they are; a method call per link, its result
    escaped, cost a third of a 64-bot tournament page's render)."""

    def __init__(self) -> None:
        self.matches = self._prefix("match-detail")
        self.bots = self._prefix("bot-detail")
        self.ladders = self._prefix("ladder-detail")
        self.tournaments = self._prefix("tournament-detail")
        self.match_list = reverse("match-list")

    @staticmethod
    def _prefix(name: str) -> Markup:
        # "/matches/0/" -> "/matches/": the text before the one argument, which ends the URL.
        before, _, after = reverse(name, args=["0"]).rpartition("0")
        if after != "/":  # the templates write the prefix, the id, then "/"
            raise ImproperlyConfigured(f"{name}: expected a URL ending in its argument and /")
        return Markup(before)


def environment(**options: Any) -> Environment:
    """The environment of the "jinja2" template backend (kaiser_site.settings.TEMPLATES)."""
    env = Environment(**options)
    env.globals["url"] = reverse
    # Django's own (timesince's text through kaiser_site.ago), so that a number or a time reads
    # as on the Django templates' pages.
    env.filters.update(floatformat=floatformat, timesince=ago_filter, ago=ago_phrase_filter)
    return env


def fragment(name: str, context: dict[str, Any]) -> SafeString:
    """A Jinja2 template's output, ready to be placed in a Django template as it is: Jinja2
    has escaped every value it printed (autoescape), so the text is marked safe here, the one
    place that does so for the pages' fragments."""
    # The backend's own Jinja2 environment (its settings, its template cache), without the
    # backend's Template wrapper: a fragment needs no request, and a card or a sparkline is
    # rendered many times a page.
    env: Environment = engines["jinja2"].env  # type: ignore[attr-defined]
    return mark_safe(env.get_template(name).render(context))  # noqa: S308


def cached(key: str | None, seconds: int, build: Callable[[], SafeString]) -> SafeString:
    """A fragment from the cache under `key`, else built and kept for `seconds` (no key: built
    every time). Rendered text stays SafeString through the cache (pickled as such); anything
    else found under the key (an older format) is rebuilt, never marked safe."""
    html = cache.get(key) if key else None
    if not isinstance(html, SafeString):
        html = build()
        if key:
            cache.set(key, html, seconds)
    return html
