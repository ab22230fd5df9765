"""The matches' pages: the match list with its filters, one match with its replay, the
replay viewer, and the fragments other pages show (match rows, a bot's activity)."""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from bots.faults import forfeit_public, match_fault_whole_for
from bots.models import Bot
from engine.games import get_game
from kaiser_site import fragments
from kaiser_site.fragments import Links, fragment
from kaiser_site.page_cache import shared_page
from ladder import selectors as ladder_selectors
from ladder.models import Ladder
from matches import filters as match_filters
from matches import selectors as match_selectors
from matches.models import Match, MatchSide, sides_with_bots
from tournaments.models import Tournament

MATCHES_PER_PAGE = 50


# No list has this many pages; a bigger number is a 404 (unbounded, it overflowed the
# database's integers in OFFSET: a 500 on SQLite).
MAX_PAGE = 10_000


def match_rows_html(rows: list[dict[str, Any]]) -> SafeString:
    """The <tr>s of matches/_match_rows.html for match_selectors.match_rows: a Jinja2
    fragment (kaiser_site.fragments), since a Django template loop took about 0.1 ms a row."""
    return fragment("matches/match_rows.html", {"rows": rows, "links": Links()})


def head_to_head_html(rows: list[dict[str, Any]], *, bot: Bot) -> SafeString:
    """The <tr>s of the bot page's head to head (match_selectors.head_to_head_records)."""
    return fragment("matches/head_to_head_rows.html",
                    {"rows": rows, "bot_name": bot.name, "links": Links()})


def int_or_none(raw: str | None) -> int | None:
    """A whole number that fits the database's integers, else None."""
    raw = (raw or "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None


def page_number(raw: str | None) -> int:
    """The page asked for: 1 when not given, a 404 unless a whole number 1 to MAX_PAGE."""
    if raw is None or raw == "":
        return 1
    number = int_or_none(raw)
    if number is None or not 1 <= number <= MAX_PAGE:
        raise Http404("no such page")
    return number


@shared_page("matches")
def match_list(request: HttpRequest) -> HttpResponse:
    """The filters of tournaments.match_filters, as at /api/v1/matches/: bad or unknown ones
    are a 400 that says why, an unknown bot or ladder lists no matches."""
    params = request.GET
    errors: dict[str, str] = {}
    try:
        filters = match_filters.match_filters_parse(params=params, user=request.user)
    except match_filters.FilterError as error:
        errors, filters = error.errors, match_filters.MatchFilters(user=request.user)
        matches = Match.objects.none()
    else:
        matches = match_filters.matches_filtered(filters=filters)
    query = params.copy()
    query.pop("page", None)
    context = {
        **_page_of(matches.order_by("-id"), params.get("page")),
        "bot": filters.bot, "opponent": filters.opponent, "unknown": filters.unknown,
        "errors": errors, "ladders": Ladder.objects.only("slug", "name"),
        "tournaments": Tournament.objects.only("name").order_by("-created")[:100],
        "statuses": Match.Status.values, "results": match_filters.RESULTS,
        "filters": params, "tournament_id": filters.tournament, "query": query.urlencode(),
    }
    return render(request, "matches/match_list.html", context, status=400 if errors else 200)


def _page_of(matches: QuerySet[Match], raw: str | None) -> dict[str, Any]:
    """One page of matches and whether there is a next one. No COUNT(*): over a hundred
    thousand matches it costs more than the page itself."""
    number = page_number(raw)
    start = (number - 1) * MATCHES_PER_PAGE
    rows = match_selectors.matches_slice(matches, start, start + MATCHES_PER_PAGE + 1)
    return {"matches": match_rows_html(rows[:MATCHES_PER_PAGE]), "number": number,
            "has_next": len(rows) > MATCHES_PER_PAGE}


@shared_page("match:{pk}")
def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        match = match_selectors.match_page_match(pk=pk)
    except Match.DoesNotExist:
        raise Http404("no such match") from None
    sides = match.side_list
    mine = [side.pk for side in sides
            if request.user.is_staff or side.version.bot.is_owned_by(request.user)]
    texts = dict(MatchSide.objects.filter(pk__in=mine).values_list("pk", "stderr")) \
        if mine else {}
    forfeit = (match.forfeit if match_fault_whole_for(request.user, match)
               else forfeit_public(match.forfeit))
    pruned = match_selectors.match_replay_pruned(match=match)
    context = {"match": match, "game": get_game(match.game), "sides": sides,
               "forfeit": forfeit or {},
               "stderr": [(side.version, texts[side.pk]) for side in sides if side.pk in texts],
               "at_fault": match.fault_side,
               "has_replay": match.status == Match.Status.FINISHED and not pruned,
               "replay_pruned": pruned,
               "retention_days": settings.KAISER_REPLAY_RETENTION_DAYS}
    return render(request, "matches/match_detail.html", context)


def swing_text(swing: int | None) -> str:
    """A swing said by who gained it: "A +7", "B +12", "0" (— when there is none)."""
    if swing is None:
        return "\u2014"
    return f"A +{swing}" if swing > 0 else f"B +{-swing}" if swing < 0 else "0"


def board_rows(boards: list[dict[str, Any]], *, match_id: int, game: str,
               names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The rows of matches/board_rows.html: each board with its two tables, links and words
    (the game's: Game.board_table_words, Game.board_difference_text). `names`: each side's
    bot ("A": "greedy"), who the contracts are by."""
    spec = get_game(game)
    rows = []
    for b in boards:
        number = f"{b['game'] + 1}/{b['deal'] + 1}"
        step = (b["difference"] or {}).get("step", 0)
        rows.append({
            **b, "label": f"games {b['game'] + 1}–{b['game'] + 2}, deal {b['deal'] + 1}",
            "url": f"/matches/{match_id}/boards/{number}/#s{step}",
            "replay_first": f"/matches/{match_id}/#g{b['game'] + 1}d{b['deal'] + 1}s{step}",
            "replay_second": f"/matches/{match_id}/#g{b['game'] + 2}d{b['deal'] + 1}s{step}",
            "deal_file": f"/api/v1/matches/{match_id}/boards/{number}/deal-file/",
            "rows": [spec.board_table_words(t, names or {}) for t in b["tables"]],
            "difference_text": spec.board_difference_text(b["difference"])
            if b["status"] == "both"
            else _alone_text(b),
            "swing_text": swing_text(b["swing"]),
        })
    return rows


def _alone_text(board: dict[str, Any]) -> str:
    games = (board["game"] + 1, board["game"] + 2)
    if board["status"] == "first only":
        return f"only in game {games[0]}: game {games[1]} ended before this deal"
    if board["status"] == "second only":
        return f"only in game {games[1]}: game {games[0]} ended before this deal"
    return "cut short by a fault in both games"


def _side_names(match: Match) -> dict[str, str]:
    return {side.letter: side.version.bot.name for side in match.side_list}


def _match_with_sides(pk: int) -> Match:
    """The match of a board page; 404 for a game without boards (engine.games: has_boards)."""
    match = get_object_or_404(Match.objects.prefetch_related(sides_with_bots())
                              .defer(*match_selectors.LIGHT_FIELDS, "stats"), pk=pk)
    if not get_game(match.game).has_boards:
        raise Http404(f"a match of {get_game(match.game).title} has no boards")
    return match


def match_boards(request: HttpRequest, pk: int) -> HttpResponse:
    """The board comparison (the traveller): every board of the match's duplicate pairs."""
    match = _match_with_sides(pk)
    boards = match_selectors.match_boards(match_id=pk) if match.status == Match.Status.FINISHED \
        else None
    if boards is None:
        return _no_boards(request, match)
    rows = board_rows(boards, match_id=pk, game=match.game, names=_side_names(match))
    swings = [r["swing"] for r in rows if r["swing"] is not None]
    context = {"match": match, "has_boards": True,
               "rows": fragment("matches/board_rows.html", {"rows": rows}),
               "total": swing_text(sum(swings)), "compared": len(swings),
               "alone": len(rows) - len(swings)}
    return render(request, "matches/match_boards.html", context)


def _no_boards(request: HttpRequest, match: Match) -> HttpResponse:
    """The boards page of a match that has none to show, saying why: not finished (200), or
    its replay, which the boards are worked out from, pruned (410 Gone)."""
    pruned = match.status == Match.Status.FINISHED
    return render(request, "matches/match_boards.html", {
        "match": match, "has_boards": False, "pruned": pruned,
        "retention_days": settings.KAISER_REPLAY_RETENTION_DAYS}, status=410 if pruned else 200)


def board_detail(request: HttpRequest, pk: int, game: int, deal: int) -> HttpResponse:
    """Both tables of one board side by side, stepping together (static/js/board.js)."""
    match = _match_with_sides(pk)
    boards = match_selectors.match_boards(match_id=pk) if match.status == Match.Status.FINISHED \
        else None
    if boards is None:
        return _no_boards(request, match)
    first = game - 1 - (game - 1) % 2
    found = next((b for b in boards if b["game"] == first and b["deal"] == deal - 1), None)
    if found is None:
        raise Http404("this match has no such board")
    row = board_rows([found], match_id=pk, game=match.game, names=_side_names(match))[0]
    return render(request, "matches/board_detail.html", {
        "match": match, "board": row, "game": first + 1, "deal": deal})


def costliest_boards_context(*, versions: list[Any], active: Any, params: Any,
                             game: str) -> dict[str, Any]:
    """The bot page's "costliest boards": the chosen version's (`boards_version`, a version
    number; else the playing one, else the newest) biggest losses, over its newest matches or
    against one opponent bot (`boards_opponent`, a name or id). An opponent or version that
    does not exist is said, not ignored. A bot of a game without boards has none (and the
    page says nothing of them: `boards_shown`)."""
    if not get_game(game).has_boards:
        return {"boards_shown": False, "boards_error": ""}
    error = ""
    by_number = {v.number: v for v in versions}
    version = active or (versions[0] if versions else None)
    raw = (params.get("boards_version") or "").strip().lstrip("vV")
    if raw:
        number = int_or_none(raw)
        version = by_number.get(number) if number is not None else None
        if version is None:
            error = f"this bot has no version {raw!r}"
    opponent, asked = None, (params.get("boards_opponent") or "").strip()[:100]
    if asked:
        opponent = match_filters.bot_lookup(asked)
        if opponent is None:
            error = f"there is no bot {asked!r}"
    rows = []
    if version is not None and not error:
        rows = match_selectors.costliest_boards(
            version_id=version.pk, opponent_bot_id=opponent.pk if opponent else None)
    for row in rows:
        number = f"{row['game'] + 1}/{row['deal'] + 1}"
        row["url"] = f"/matches/{row['match_id']}/boards/{number}/#s{row['step']}"
        row["label"] = f"match #{row['match_id']}, games {row['game'] + 1}\u2013" \
                       f"{row['game'] + 2}, deal {row['deal'] + 1}"
    return {"boards_shown": True, "boards_version": version, "boards_opponent": asked,
            "boards_error": error,
            "costliest": rows, "boards_versions": versions}


def replay_viewer(request: HttpRequest) -> HttpResponse:
    """The viewer alone, for a replay file from the command line (opened or dropped)."""
    return render(request, "matches/replay_viewer.html", {})






def bot_activity_html(*, bot: Bot, version_ids: list[int] | None = None,
                      waiting: str = "") -> SafeString:
    """The bot page's public part (ratings, head to head, recent matches), the same for every
    visitor: rendered once per change of the bot's entries or matches (ladder_selectors.bot_facts),
    then served from the cache. `version_ids`: as bot_facts takes them. `waiting`: what the
    bot waits for before its first rated match (ladder_selectors.bot_ladder_wait)."""
    facts = ladder_selectors.bot_facts(bot=bot, version_ids=version_ids)

    def build() -> SafeString:
        context = ladder_selectors.bot_activity(facts=facts)
        context["matches"] = match_rows_html(context["matches"])
        context["head_to_head_html"] = head_to_head_html(context["head_to_head"], bot=bot)
        context["waiting"] = waiting
        return render_to_string("matches/_bot_activity.html", context)

    # "N minutes ago" must not go stale for long
    key = hashlib.sha256(f"{facts.version}:{waiting}".encode()).hexdigest()
    return fragments.cached(f"bot-activity-html:{key}", 60, build)
