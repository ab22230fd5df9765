"""Pages and the small JSON endpoints of a person's game against bots. The page follows
events/ (server-sent events of each view the worker publishes, on the ASGI app with Redis) or
else polls state/, and posts the person's moves to move/."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from bots.models import default_game
from play import push, selectors, services
from play.models import Table
from play.services import PlayError

MAX_BODY = 4096
STREAM_RETRY_MS = 2000  # an EventSource that lost its stream opens it again after this


@login_required
def play_home(request: HttpRequest) -> HttpResponse:
    """The new-game form of a game (`?game=sergeant-major`; the default game, Kaiser, unless
    asked; POST opens the game) and the person's games."""
    error, status = "", 200
    tables = selectors.table_games()
    name = request.POST.get("game") or request.GET.get("game") or default_game()
    if name not in tables:
        name = default_game()
    places = services.bot_seats(name)
    spec = tables[name]
    chosen = {"rules": spec.default_preset, "length": Table.Length.DEAL,
              "seats": ["builtin:random"] * len(places)}
    if request.method == "POST":
        chosen = {"rules": request.POST.get("rules", ""),
                  "length": request.POST.get("length", ""),
                  "seats": [request.POST.get(f"seat{n}", "") for n in places]}
        try:
            game = services.game_create(owner=request.user, game=name, **chosen)
        except PlayError as refused:
            error, status = str(refused), refused.status
        else:
            return redirect("play-game", pk=game.pk)
    context = {
        "error": error, "chosen": chosen, "presets": list(spec.presets), "game": name,
        "game_title": spec.title, "games": [(g.name, g.title) for g in tables.values()],
        "lengths": Table.Length.choices, "choices": selectors.seat_choices(game=name),
        "seat_fields": list(zip(places, spec.person_seat_labels, chosen["seats"], strict=True)),
        "move_minutes": max(1, round(settings.KAISER_PLAY_MOVE_SECONDS / 60)),
        "my_games": selectors.games_of(owner=request.user)[:50],
        "open_limit": settings.KAISER_PLAY_OPEN_GAMES,
    }
    return render(request, "play/home.html", context, status=status)


def _game_for(request: HttpRequest, pk: int, *, owner_only: bool) -> Table:
    game = get_object_or_404(Table.objects.select_related("owner").defer("replay"), pk=pk)
    if owner_only and game.owner_id != request.user.pk:
        raise Http404("no such game of yours")
    return game


@login_required
def game_page(request: HttpRequest, pk: int) -> HttpResponse:
    game = _game_for(request, pk, owner_only=True)
    seats = list(game.seats.select_related("version__bot"))
    return render(request, "play/game.html", {"table": game, "seats": seats,
                                              "pushed": push_served(request)})


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
    return JsonResponse(services.game_message(game))


async def game_events(request: HttpRequest, pk: int) -> HttpResponse:
    """The game's state as server-sent events: the current one at once, then each one the
    worker publishes (play.push), until the game is over. Served by the ASGI app with Redis;
    elsewhere 204 No Content, which tells the page's EventSource to stop and poll state/."""
    refused = await sync_to_async(_events_refused)(request, pk)
    if refused is not None:
        return refused
    if not push_served(request):
        return HttpResponse(status=204)
    response = StreamingHttpResponse(_event_stream(pk), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front passes each event on at once
    return response


def _events_refused(request: HttpRequest, pk: int) -> JsonResponse | None:
    """403 or 404 unless the game is the signed-in person's. Closes the database connection:
    the request lasts as long as its stream, and its thread's connection would last with it
    (hundreds of open pages would hold hundreds of connections)."""
    try:
        if not request.user.is_authenticated:
            return JsonResponse({"error": "sign in first"}, status=403)
        if not Table.objects.filter(pk=pk, owner_id=request.user.pk).exists():
            return JsonResponse({"error": "no such game of yours"}, status=404)
        return None
    finally:
        services.connection_release()


def push_served(request: HttpRequest) -> bool:
    """Whether this server can keep an event stream open: the ASGI app (a WSGI worker would be
    held by each open page) with Redis to hear the worker."""
    return push.enabled() and isinstance(request, ASGIRequest)


async def _event_stream(pk: int) -> AsyncIterator[str]:
    yield f"retry: {STREAM_RETRY_MS}\n\n"
    sent = -1
    async with aclosing(push.subscribe(pk)) as messages:
        async for text in messages:
            if text is None:  # subscribed, or quiet for a while: the record says where it is
                message = await sync_to_async(_stream_check, thread_sensitive=False)(pk)
                if message is None or message["seq"] == sent and message["status"] == "running":
                    yield ": still here\n\n"
                    continue
                text = json.dumps(message, separators=(",", ":"))
            else:
                message = json.loads(text)
            sent = message["seq"]
            yield f"id: {sent}\ndata: {text}\n\n"
            if message["status"] in ("finished", "void"):
                return


def _stream_check(pk: int) -> dict[str, Any] | None:
    """The game's state from its row, voiding it first if its worker stopped (as state/ does);
    on a connection of its own, closed at once (the stream runs in no request's thread)."""
    try:
        game = Table.objects.defer("replay").filter(pk=pk).first()
        if game is None:
            return None
        if services.game_is_stale(game) and services.games_void_stale(game_id=game.pk):
            game.refresh_from_db()
        return services.game_message(game)
    finally:
        services.connection_release()


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
    game = get_object_or_404(Table.objects.select_related("owner").defer("replay", "view"),
                             pk=pk, status=Table.Status.FINISHED)
    seats = list(game.seats.select_related("version__bot"))
    return render(request, "play/replay.html", {"table": game, "seats": seats})


@require_GET
def game_replay(request: HttpRequest, pk: int) -> JsonResponse:
    game = get_object_or_404(Table.objects.only("replay", "status"), pk=pk,
                             status=Table.Status.FINISHED)
    return JsonResponse(game.replay, json_dumps_params={"separators": (",", ":")})
