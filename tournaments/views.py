"""The tournaments' pages: the list, one tournament (its body a cached Jinja2 fragment),
the form for a new one (staff), entering and withdrawing, cancelling, and the results as JSON
and CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from bots.models import Bot
from bots.selectors import bot_active_version
from engine.games import get_game
from kaiser_site import fragments
from kaiser_site.page_cache import shared_page
from matches.views import int_or_none
from tournaments import organisers, page, services, words
from tournaments import selectors as tournament_selectors
from tournaments.forms import TournamentForm, game_choices_data
from tournaments.models import Tournament, min_entrants


@shared_page("tournaments")
def tournament_list(request: HttpRequest) -> HttpResponse:
    """The tournaments, and who may make one: an organiser's button, or how to become one
    (a request staff answer from the site; the admin's ways for site operators)."""
    return render(request, "tournaments/tournament_list.html", _list_context(request))


def _list_context(request: HttpRequest) -> dict[str, Any]:
    return {"tournaments": tournament_selectors.tournaments_page(),
            "organiser": organisers.can_organise(request.user),
            "asked": organisers.latest_request(request.user)}


def organiser_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Organisers only. Anonymous visitors are sent to log in; a signed-in author gets the 403
    page saying how to become an organiser."""
    @wraps(view)
    @login_required
    def organiser_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        organisers.organiser_required(request.user)
        return view(request, *args, **kwargs)
    return organiser_view


@login_required
@require_POST
def organise_ask(request: HttpRequest) -> HttpResponse:
    """The signed-in account asks staff to let it organise tournaments."""
    try:
        organisers.request_make(user=request.user, reason=request.POST.get("reason", ""))
    except ValidationError as error:  # said on the list, with a 400: nothing was asked
        messages.error(request, "; ".join(error.messages))
        return render(request, "tournaments/tournament_list.html", _list_context(request),
                      status=400)
    else:
        messages.success(request, "Your request is sent: staff answer it on this site, and "
                                  "this page will say when you can make tournaments.")
    return redirect("tournament-list")


@login_required
def organiser_requests(request: HttpRequest) -> HttpResponse:
    """Staff's page of waiting requests to organise, each with Grant and Refuse."""
    if not (request.user.is_active and request.user.is_staff):
        raise PermissionDenied("Only staff answer requests to organise tournaments.")
    if request.method == "POST":
        grant = request.POST.get("decision") == "grant"
        try:
            decided = organisers.request_decide(
                request_id=int_or_none(request.POST.get("request")) or 0, staff=request.user,
                grant=grant, answer=request.POST.get("answer", ""))
        except ValidationError as error:
            messages.error(request, "; ".join(error.messages))
        else:
            name = decided.user.get_username()
            messages.success(request, f"{name} can now organise tournaments." if grant
                             else f"{name}'s request is refused.")
        return redirect("organiser-requests")
    return render(request, "tournaments/organiser_requests.html",
                  {"pending": organisers.requests_pending()})


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament.objects.select_related("ladder"), pk=pk)
    state = tournament_selectors.tournament_state(tournament=tournament)
    if request.GET.get("part") == "progress":  # what live.js polls while it runs
        return JsonResponse({"status": tournament.status, "progress": state.progress})
    body = _body_html(tournament, state)
    if request.GET.get("part") == "live":  # what live.js swaps in when the progress moves
        return HttpResponse(body)
    game = get_game(tournament.game)
    context = {"t": tournament, "state": state, "body": body,
               "can_cancel": organisers.can_cancel(request.user, tournament),
               "format_line": words.format_line(format=tournament.format,
                                                players=tournament.players,
                                                entrants=state.entrants,
                                                rounds=tournament.rounds),
               "rules_title": game.preset_title(tournament.rules), "game_title": game.title,
               "min_entrants": min_entrants(tournament.game)}
    if tournament.status == Tournament.Status.OPEN:
        mine = tournament_selectors.enterable_versions(user=request.user,
                                                       game=tournament.game)
        entered = tournament_selectors.entered_bot_ids(tournaments=[tournament]) if mine else {}
        context["mine"] = [v for v in mine if v.bot_id not in entered.get(tournament.pk, ())]
        context["has_bots"] = bool(mine)
        context["entered"] = tournament_selectors.entries_owned(tournament=tournament,
                                                                user=request.user)
    return render(request, "tournaments/tournament_detail.html", context)


def _body_html(tournament: Tournament, state: tournament_selectors.PageState) -> SafeString:
    """The crosstable, standings and bracket, the same for every visitor: rendered once per
    change of the tournament (state.version), then served from the cache."""
    def build() -> SafeString:
        return tournament_body_html(tournament)

    return fragments.cached(f"tournament-body:{state.version}", 60, build)  # a rename shows soon


def tournament_body_html(tournament: Tournament) -> SafeString:
    """The crosstable, standings and bracket of `tournament`, rendered now."""
    return fragments.fragment("tournaments/tournament_body.html", {
        "t": tournament, "view": page.tournament_view(tournament=tournament),
        "knockout": tournament.format == Tournament.Format.KNOCKOUT,
        "three": tournament.players > 2,
        "finished": tournament.status == Tournament.Status.FINISHED, "links": fragments.Links(),
    })


@organiser_required
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
    games = game_choices_data()
    chosen = form.data.get("game") or form["game"].initial
    names = games.get(chosen, next(iter(games.values())))["bots"]
    return render(request, "tournaments/tournament_form.html",
                  {"form": form, "names": names, "games_data": games})


@login_required
@require_POST
def tournament_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    organisers.cancel_allowed(request.user, tournament)
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


@login_required
@require_POST
def tournament_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    """The bot's owner (or staff) takes its entry back before the tournament starts."""
    tournament = get_object_or_404(Tournament, pk=pk)
    raw = request.POST.get("bot", "")
    bot = get_object_or_404(Bot, pk=int(raw) if raw.isdigit() else 0)
    try:  # someone else's bot: PermissionDenied, the 403 page
        services.tournament_withdraw(tournament=tournament, bot=bot, user=request.user)
    except (services.EntryClosed, ValidationError) as error:
        text = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
        messages.error(request, text)
    else:
        messages.success(request, f"{bot.name} withdrew from {tournament.name}.")
    return redirect("tournament-detail", pk=pk)


def tournament_results_json(request: HttpRequest, pk: int) -> JsonResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    body = page.tournament_results(tournament=tournament)
    response = JsonResponse(body, encoder=DjangoJSONEncoder, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="tournament-{pk}.json"'
    return response


def tournament_results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The standings (the final ranking once finished), one bot a row."""
    tournament = get_object_or_404(Tournament, pk=pk)
    rows = page.tournament_results(tournament=tournament)["standings"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=page.RESULT_COLUMNS,
                            extrasaction="ignore")  # the JSON's ids stay out of the sheet
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
