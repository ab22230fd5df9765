"""The ladder's pages: the leaderboard at / (and /ladders/<slug>/), and the challenge form.
Reads come from ladder.selectors; the one write (a challenge) goes through ladder.services."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from bots.models import Bot, BotVersion, default_game, game_players
from bots.selectors import bot_active_version
from engine.games import get_game
from kaiser_site import fragments
from kaiser_site.page_cache import shared_page
from kaiser_site.templatetags.arena import sparkline_data
from ladder import selectors as ladder_selectors
from ladder import services as ladder_services
from ladder.models import Ladder
from matches import selectors as match_selectors
from matches.views import int_or_none, match_rows_html, page_number

LEADERBOARD_ROWS = 50


@shared_page("board")
def home(request: HttpRequest, slug: str | None = None) -> HttpResponse:
    """A ladder's leaderboard (the main ladder at /), its latest matches, and the way in."""
    ladders = list(Ladder.objects.filter(active=True))  # the tabs: a few rows, whole
    ladder = ladder_selectors.ladder_or_main(slug, among=ladders)
    page = page_number(request.GET.get("page"))
    context = {
        "ladder": ladder,
        "ladders": ladders,
        "board": _board_html(ladder, page),
        # What the ladder's game is, in its own words (engine.games: the site asks a game).
        "game": get_game(ladder.game if ladder else default_game()),
    }
    return render(request, "ladder/home.html", context)


def _board_html(ladder: Ladder | None, page: int) -> SafeString:
    """The leaderboard and the latest matches, the same for every visitor: rendered once per
    change of the board (ladder_selectors.board_version), then served from the cache."""
    key = f"board-html:{ladder_selectors.board_version(ladder=ladder)}:{page}" if ladder else None

    def build() -> SafeString:
        rows, total = ([], 0)
        if ladder is not None:
            rows, total = ladder_selectors.leaderboard_page(
                ladder=ladder, offset=(page - 1) * LEADERBOARD_ROWS, limit=LEADERBOARD_ROWS)
        return render_to_string("ladder/_board.html", {
            "ladder": ladder, "rows": rows, "total": total, "page": page,
            "has_boards": get_game(ladder.game if ladder else default_game()).has_boards,
            "rows_html": fragments.fragment("ladder/board_rows.html", {
                "rows": [(r, sparkline_data(r.trend)) for r in rows],
                "links": fragments.Links()}),
            "pages": max(1, -(-total // LEADERBOARD_ROWS)),
            "latest": match_rows_html(match_selectors.latest_matches(ladder=ladder)
                                      if ladder else []),
            "unrated": ladder_selectors.unrated_entries(ladder=ladder) if ladder else [],
            "fit_missing": bool(rows) and all(r.board.fitted is None for r in rows),
        })

    return fragments.cached(key, 60, build)  # "N minutes ago" must not go stale for long


@login_required
@require_POST
def challenge(request: HttpRequest) -> HttpResponse:
    """A challenge from the signed-in author's bot to another bot, through the service."""
    opponent = get_object_or_404(Bot, pk=int_or_none(request.POST.get("opponent")) or 0)
    mine = get_object_or_404(Bot, pk=int_or_none(request.POST.get("bot")) or 0,
                             owner=request.user)
    others = [get_object_or_404(Bot, pk=int_or_none(request.POST.get(
        ladder_services.opponent_field(side))) or 0)
        for side in range(2, game_players(opponent.game))]
    versions = bot_active_version(bot=mine), bot_active_version(bot=opponent)
    more = [bot_active_version(bot=other) for other in others]
    ladder = (ladder_selectors.ladder_or_main(None) if opponent.game == default_game()
              else ladder_selectors.ladder_of_game(opponent.game))
    if None in versions or ladder is None or None in more:
        messages.error(request, "Every bot needs an active version to play.")
        return redirect("bot-detail", pk=opponent.pk)
    try:
        match = ladder_services.challenge_create(
            user=request.user, version=_version(versions[0]),
            opponent=_version(versions[1]), rated=False, ladder=ladder,
            more=[_version(v) for v in more])
    except ladder_services.RateLimited as limited:
        messages.error(request, str(limited))
        return redirect("bot-detail", pk=opponent.pk)
    except ValidationError as error:
        messages.error(request, "; ".join(error.messages))
        return redirect("bot-detail", pk=opponent.pk)
    messages.success(request, f"Challenge sent: {mine.name} against {opponent.name}.")
    return redirect("match-detail", pk=match.pk)


def _version(version: BotVersion | None) -> BotVersion:
    assert version is not None
    return version
