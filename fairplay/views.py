"""The fair-play report (staff only): flagged versions with their figures and the matches
behind them, then every checked version."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from fairplay import selectors

STAFF_ONLY = ("The fair-play report is for staff only: it flags bots for a person to look "
              "at, it does not judge them. An owner sees their own bot's check on its page.")


@require_GET
@login_required
def fairplay_report(request: HttpRequest) -> HttpResponse:
    """A page to read, never to post to. Anonymous visitors are sent to log in; a signed-in
    author gets the 403 page."""
    if not (request.user.is_active and request.user.is_staff):
        raise PermissionDenied(STAFF_ONLY)
    return render(request, "fairplay/report.html", {
        "report": selectors.fairplay_report(), "spread_bits": selectors.spread_bits(),
        "matches_looked_at": settings.KAISER_FAIRPLAY_MATCHES})
