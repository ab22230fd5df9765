"""Pages and the small JSON endpoints of a person's game against bots. The page polls
state/ for the view the worker publishes, and posts the person's moves to move/."""

from __future__ import annotations

import json
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from engine.rules import PRESETS
from play import selectors, services
from play.models import Game
from play.services import PlayError

MAX_BODY = 4096
SEAT_LABELS = ("West (opponent)", "North (your partner)", "East (opponent)")


@login_required
def play_home(request: HttpRequest) -> HttpResponse:
    """The new-game form (POST opens the game) and the person's games."""
    error, status = "", 200
    chosen = {"rules": "official", "length": Game.Length.DEAL,
              "seats": ["builtin:random", "builtin:random", "builtin:random"]}
    if request.method == "POST":
        chosen = {"rules": request.POST.get("rules", ""),
                  "length": request.POST.get("length", ""),
                  "seats": [request.POST.get(f"seat{n}", "") for n in services.SEATS]}
        try:
            game = services.game_create(owner=request.user, **chosen)
        except PlayError as refused:
            error, status = str(refused), refused.status
        else:
            return redirect("play-game", pk=game.pk)
    context = {
        "error": error, "chosen": chosen, "presets": list(PRESETS),
        "lengths": Game.Length.choices, "choices": selectors.seat_choices(),
        "seat_fields": list(zip(services.SEATS, SEAT_LABELS, chosen["seats"], strict=True)),
        "move_minutes": max(1, round(settings.KAISER_PLAY_MOVE_SECONDS / 60)),
        "games": selectors.games_of(owner=request.user)[:50],
        "open_limit": settings.KAISER_PLAY_OPEN_GAMES,
    }
    return render(request, "play/home.html", context, status=status)


def _game_for(request: HttpRequest, pk: int, *, owner_only: bool) -> Game:
    game = get_object_or_404(Game.objects.select_related("owner").defer("replay"), pk=pk)
    if owner_only and game.owner_id != request.user.pk:
        raise Http404("no such game of yours")
    return game


@login_required
def game_page(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game_for(request, pk, owner_only=True)
    seats = list(game.seats.select_related("version__bot"))
    return render(request, "play/game.html", {"game": game, "seats": seats})


@require_GET
def game_state(request: HttpRequest, pk: int) -> JsonResponse:
    """The published view; `?after=N` answers {"seq": N, "unchanged": true} while nothing
    newer is published (cheap enough to poll several times a second)."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "sign in first"}, status=403)
    game = _game_for(request, pk, owner_only=True)
    if services.game_is_stale(game) and services.games_void_stale(game_id=game.pk):
        game.refresh_from_db()
    after = request.GET.get("after", "")
    if game.is_open and after.isdigit() and int(after) == game.seq and game.view is not None \
            and not game.resign_requested:
        return JsonResponse({"seq": game.seq, "status": game.status, "unchanged": True})
    return JsonResponse({"seq": game.seq, "status": game.status, "view": game.view,
                         "now": int(time.time() * 1000),  # the page's clock counts from it
                         "void_reason": game.void_reason,
                         "resigning": game.resign_requested and game.is_open,
                         "replay": reverse("play-replay", args=[game.pk])
                         if game.status == Game.Status.FINISHED else None})


@require_POST
def game_move(request: HttpRequest, pk: int) -> JsonResponse:
    """{"seq": N, "action": ...}: the person's move N (protocol form: "8N", "H", "AS",
    ["7C", "8D"])."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "sign in first"}, status=403)
    game = _game_for(request, pk, owner_only=True)
    body = _json_body(request)
    if not isinstance(body, dict) or "seq" not in body or "action" not in body:
        return JsonResponse({"error": 'send {"seq": <move number>, "action": <move>}'},
                            status=400)
    try:
        answer = services.move_submit(game=game, user=request.user, seq=body["seq"],
                                      action=body["action"])
    except PlayError as refused:
        return JsonResponse({"error": str(refused)}, status=refused.status)
    return JsonResponse(answer)


def _json_body(request: HttpRequest) -> Any:
    if len(request.body) > MAX_BODY:
        return None
    try:
        return json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        return None


@require_POST
@login_required
def game_resign(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game_for(request, pk, owner_only=True)
    services.game_resign(game=game, user=request.user)
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"status": game.status, "resigning": game.resign_requested})
    return redirect("play-game", pk=game.pk)


def game_replay_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A finished game in the replay viewer: public, like a match's replay."""
    game = get_object_or_404(Game.objects.select_related("owner").defer("replay", "view"),
                             pk=pk, status=Game.Status.FINISHED)
    seats = list(game.seats.select_related("version__bot"))
    return render(request, "play/replay.html", {"game": game, "seats": seats})


@require_GET
def game_replay(request: HttpRequest, pk: int) -> JsonResponse:
    game = get_object_or_404(Game.objects.only("replay", "status"), pk=pk,
                             status=Game.Status.FINISHED)
    return JsonResponse(game.replay, json_dumps_params={"separators": (",", ":")})
