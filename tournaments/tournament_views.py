"""Tournament pages: the staff's "New tournament" form and cancel, an author's entry, the
tournament page (crosstable, standings, bracket) and its results as JSON and CSV. Reads come
from tournament_selectors; writes go through services."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from bots.models import Bot
from bots.selectors import bot_active_version
from tournaments import services, tournament_html, tournament_selectors
from tournaments.forms import TournamentForm
from tournaments.models import Tournament
from tournaments.views import _Links


def staff_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Staff only. Anonymous visitors are sent to log in; a signed-in author gets the 403 page,
    since logging in again as themselves would not help."""
    @wraps(view)
    @login_required
    def staff_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not (request.user.is_active and request.user.is_staff):
            raise PermissionDenied("Only staff create and cancel tournaments; "
                                   "you can enter your bots in an open one.")
        return view(request, *args, **kwargs)
    return staff_view


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament.objects.select_related("ladder"), pk=pk)
    state = tournament_selectors.tournament_state(tournament=tournament)
    if request.GET.get("part") == "progress":  # what live.js polls while it runs
        return JsonResponse({"status": tournament.status, "progress": state.progress})
    body = _body_html(tournament, state)
    if request.GET.get("part") == "live":  # what live.js swaps in when the progress moves
        return HttpResponse(body)
    context = {"t": tournament, "state": state, "body": body}
    if tournament.status == Tournament.Status.OPEN:
        mine = tournament_selectors.enterable_versions(user=request.user)
        entered = tournament_selectors.entered_bot_ids(tournaments=[tournament]) if mine else {}
        context["mine"] = [v for v in mine if v.bot_id not in entered.get(tournament.pk, ())]
        context["has_bots"] = bool(mine)
    return render(request, "tournaments/tournament_detail.html", context)


def _body_html(tournament: Tournament, state: tournament_selectors.PageState) -> str:
    """The crosstable, standings and bracket, the same for every visitor: rendered once per
    change of the tournament (state.version), then served from the cache."""
    key = f"tournament-body:{state.version}"
    html: str | None = cache.get(key)
    if html is None:
        view = tournament_selectors.tournament_view(tournament=tournament)
        links = _Links()
        knockout = tournament.format == Tournament.Format.KNOCKOUT
        html = render_to_string("tournaments/_tournament_body.html", {
            "t": tournament, "view": view, "knockout": knockout,
            "standings_rows": tournament_html.standings_html(
                view.table, knockout=knockout, links=links,
                finished=tournament.status == Tournament.Status.FINISHED),
            "crosstable_rows": tournament_html.crosstable_html(view.crosstable, links=links),
            "columns": [(c, tournament_html.bouts_html(c.bouts, links=links))
                        for c in view.columns],
        })
        cache.set(key, html, 60)  # a bot renamed shows within a minute
    return mark_safe(html)  # rendered by our own template, escaped there


@staff_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.tournament_create(created_by=request.user,
                                                    **form.service_arguments())
        except ValidationError as error:
            for name, errors in error.message_dict.items():
                form.add_error(name if name in form.fields else None, errors)
        else:
            if tournament.status == Tournament.Status.OPEN:
                messages.success(request, f"{tournament.name} is open for entry.")
            else:
                messages.success(request, f"{tournament.name} has started.")
            return redirect("tournament-detail", pk=tournament.pk)
    names = list(Bot.objects.filter(retired=False).order_by("name")
                 .values_list("name", flat=True)[:5000])
    return render(request, "tournaments/tournament_form.html", {"form": form, "names": names})


@staff_required
@require_POST
def tournament_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    if services.tournament_cancel(tournament=tournament,
                                  reason=f"cancelled by {request.user.get_username()}"):
        messages.success(request, f"{tournament.name} is cancelled.")
    else:
        messages.error(request, f"{tournament.name} has started: it can no longer be cancelled.")
    return redirect("tournament-detail", pk=pk)


@login_required
@require_POST
def tournament_enter(request: HttpRequest, pk: int) -> HttpResponse:
    """The signed-in author enters one of their bots (its active version)."""
    tournament = get_object_or_404(Tournament, pk=pk)
    raw = request.POST.get("bot", "")
    # One's own bots only (staff included), as with challenges: 404 for anyone else's.
    bot = get_object_or_404(Bot, pk=int(raw) if raw.isdigit() else 0, owner=request.user)
    version = None if bot.retired else bot_active_version(bot=bot)
    if version is None:
        messages.error(request, f"{bot.name} has no active version to play.")
    else:
        try:
            services.tournament_enter(tournament=tournament, version=version, user=request.user)
        except ValidationError as error:
            messages.error(request, "; ".join(error.messages))
        else:
            messages.success(request, f"{bot.name} entered {tournament.name}.")
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        return redirect(back)
    return redirect("tournament-detail", pk=pk)


def tournament_results_json(request: HttpRequest, pk: int) -> JsonResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    body = tournament_selectors.tournament_results(tournament=tournament)
    response = JsonResponse(body, encoder=DjangoJSONEncoder, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="tournament-{pk}.json"'
    return response


def tournament_results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings (the final ranking once finished), one bot a row."""
    tournament = get_object_or_404(Tournament, pk=pk)
    rows = tournament_selectors.tournament_results(tournament=tournament)["standings"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=tournament_selectors.RESULT_COLUMNS)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_safe(v) for k, v in row.items()})
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{pk}.csv"'
    return response


def _csv_safe(value: object) -> object:
    """Bot names are the authors' text: one starting like a formula is quoted, so a
    spreadsheet shows it instead of running it."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value
