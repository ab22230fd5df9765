"""Minimal bot pages: list, create, detail with version verdicts, edit, upload, retire."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from bots import selectors, services
from bots.forms import BotCreateForm, BotForm, UploadForm
from bots.models import Bot, BotVersion, game_choices, game_players
from bots.programs import program_size_error
from bots.throttles import UploadThrottle
from fairplay import selectors as fairplay_selectors
from kaiser_site.page_cache import STATS, shared_page
from ladder import selectors as ladder_selectors
from ladder.services import opponent_field
from matches.selectors import challenge_versions, third_player_versions
from matches.stats import bot_stats_context
from matches.views import bot_activity_html, costliest_boards_context


def _owned_bot(request: HttpRequest, pk: int) -> Bot:
    bot = get_object_or_404(Bot, pk=pk)
    if not (request.user.is_staff or bot.is_owned_by(request.user)):
        raise PermissionDenied("Only the bot's owner may change it.")
    return bot


@shared_page("bots")
def bot_list(request: HttpRequest) -> HttpResponse:
    """The bots that play, with their game; ?game=<name> keeps one game's (an unknown game is
    said in words, with no rows)."""
    bots = selectors.bot_list().filter(retired=False).order_by("name")
    games = game_choices()
    game = request.GET.get("game", "")
    known = game in dict(games)
    if game:
        bots = bots.filter(game=game) if known else bots.none()
    context = {"bots": bots, "games": games, "game": game, "game_unknown": bool(game) and not known}
    return render(request, "bots/bot_list.html", context, status=400 if game and not known else 200)


@shared_page("bot:{pk}", STATS)
def bot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    is_owner = request.user.is_staff or bot.is_owned_by(request.user)
    context = {
        "bot": bot,
        "versions": _versions_with_stderr_tails(bot, shown=is_owner),
        "is_owner": is_owner,
    }
    context["active"] = selectors.version_playing(bot=bot, versions=context["versions"])
    version_ids = [v.pk for v in context["versions"]]
    # The ladder's and matches' part: ratings, head to head, matches, and the challenge form.
    context["activity"] = bot_activity_html(
        bot=bot, version_ids=version_ids,
        waiting=ladder_selectors.bot_ladder_wait(bot=bot, playing=context["active"]))
    context["stats"] = bot_stats_context(
        version_ids=version_ids,
        playing_id=context["active"].pk if context["active"] else None, game=bot.game)
    context["challengers"] = challenge_versions(user=request.user, opponent=bot)
    context["third_players"] = (third_player_versions(opponent=bot)
                                if context["challengers"] else [])
    context["players"] = game_players(bot.game)  # a match's players at its game
    # A challenge's select of each opponent past the first (opponent_c, opponent_d, ...).
    context["more_fields"] = [opponent_field(side) for side in range(2, context["players"])]
    # The think-time check is its owner's to read (and staff's, in their report), no one else's.
    check = fairplay_selectors.bot_fairplay_check(bot=bot) if bot.is_owned_by(
        request.user) else None
    if check is not None:
        context.update(fairplay_check=check, spread_bits=fairplay_selectors.spread_bits())
    context.update(costliest_boards_context(
        versions=[v for v in context["versions"] if v.status == BotVersion.Status.ACTIVE],
        active=context["active"], params=request.GET, game=bot.game))
    status = 400 if context["boards_error"] else 200
    return render(request, "bots/bot_detail.html", context, status=status)


def _versions_with_stderr_tails(bot: Bot, *, shown: bool) -> list[BotVersion]:
    """The bot's versions; a rejected one's stderr_tail (why it failed, next to the verdict) is
    set only when `shown`: a bot's stderr is its owner's and staff's (bots.faults)."""
    versions = list(selectors.bot_versions(bot=bot))
    for version in versions:
        rejected = shown and version.status == BotVersion.Status.REJECTED
        version.stderr_tail = (  # type: ignore[attr-defined]
            selectors.bot_version_stderr_tail(version=version) if rejected else "")
    return versions


@login_required
def bot_create(request: HttpRequest) -> HttpResponse:
    form = BotCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            bot = services.bot_create(owner=request.user, **form.cleaned_data)
        except ValidationError as error:
            _form_errors(form, error)
        else:
            messages.success(request, f"{bot.name} is yours. Upload its first version.")
            return redirect("bot-upload", pk=bot.pk)
    return render(request, "bots/bot_form.html", {"form": form, "title": "New bot"})


@login_required
def bot_edit(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _owned_bot(request, pk)
    initial = {"name": bot.name, "description": bot.description}
    form = BotForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.bot_update(bot=bot, **form.cleaned_data)
        except ValidationError as error:
            _form_errors(form, error)
        else:
            return redirect("bot-detail", pk=bot.pk)
    return render(request, "bots/bot_form.html", {"form": form, "title": f"Edit {bot.name}"})


@login_required
def bot_upload(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _owned_bot(request, pk)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and (wait := _upload_wait(request)) is not None:
        form.add_error(None, f"Too many uploads: try again in {wait} seconds.")
        return render(request, "bots/bot_upload.html", {"form": form, "bot": bot}, status=429)
    if request.method == "POST" and form.is_valid():
        uploaded = form.cleaned_data["file"]
        try:
            if message := program_size_error(uploaded.size):
                raise ValidationError({"file": message})
            version = services.bot_version_upload(
                bot=bot, filename=uploaded.name, content=uploaded.read()
            )
        except services.DuplicateUpload as duplicate:
            same = duplicate.version
            form.add_error("file", render_to_string(
                "bots/_duplicate_upload.html", {"bot": bot, "same": same}))
        except ValidationError as error:
            _form_errors(form, error)
        else:
            messages.success(request, f"Version {version.number} uploaded; its check is queued.")
            return redirect("bot-detail", pk=bot.pk)
    return render(request, "bots/bot_upload.html", {"form": form, "bot": bot})


def _upload_wait(request: HttpRequest) -> int | None:
    """Seconds to wait if this user spent the upload budget (the API's, shared), else None."""
    throttle = UploadThrottle()
    if throttle.allow_request(request, None):  # type: ignore[arg-type]
        return None
    return int(throttle.wait() or 1)


@login_required
def bot_retire(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for a confirmation; POST retires (undone by bot_unretire)."""
    bot = _owned_bot(request, pk)
    if request.method != "POST":
        playing = selectors.bot_active_version(bot=bot)
        return render(request, "bots/bot_retire.html", {"bot": bot, "playing": playing})
    services.bot_retire(bot=bot)
    messages.success(request, f"{bot.name} is retired: it keeps its history and plays no more. "
                              "Changed your mind? \u201cBring it back\u201d below undoes it.")
    return redirect("bot-detail", pk=bot.pk)


@login_required
@require_POST
def bot_unretire(request: HttpRequest, pk: int) -> HttpResponse:
    bot = services.bot_unretire(bot=_owned_bot(request, pk))
    playing = selectors.bot_active_version(bot=bot)
    messages.success(request, f"{bot.name} is back" + (
        f": version {playing.number} plays again." if playing else "."))
    return redirect("bot-detail", pk=bot.pk)


@login_required
@require_POST
def bot_play(request: HttpRequest, pk: int) -> HttpResponse:
    """The owner chooses the version that plays (any checked one: forward or back)."""
    bot = _owned_bot(request, pk)
    raw = request.POST.get("version", "")
    version = get_object_or_404(BotVersion, pk=int(raw) if raw.isdecimal() and len(raw) < 19
                                else 0, bot=bot)
    try:
        services.bot_version_play(bot=bot, version=version)
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
    else:
        messages.success(request, f"Version {version.number} of {bot.name} plays from now on "
                                  "(on the ladder from its next scheduling round).")
    return redirect("bot-detail", pk=bot.pk)


def _form_errors(form: object, error: ValidationError) -> None:
    for field, errors in error.message_dict.items():
        target = field if field in form.fields else None  # type: ignore[attr-defined]
        for message in errors:
            form.add_error(target, message)  # type: ignore[attr-defined]
