"""HTML pages: the ladders' leaderboards, matches and the replay viewer, tournaments, the docs
for bot authors, and the challenge form. Reads come from page_selectors / selectors; the one
write (a challenge) goes through services."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_POST

from bots.faults import forfeit_public, match_fault_whole_for
from bots.models import Bot, BotVersion
from bots.selectors import bot_active_version
from tournaments import match_filters, page_selectors, services
from tournaments.models import Ladder, Match, Tournament

MAIN_LADDER = "main"
LEADERBOARD_ROWS = 50
MATCHES_PER_PAGE = 50
# No list has this many pages; a bigger number is a 404 (unbounded, it overflowed the
# database's integers in OFFSET: a 500 on SQLite).
MAX_PAGE = 10_000
EXAMPLES_DIR = Path(settings.BASE_DIR) / "bots" / "examples"
STARTER_FILES = {
    "minimal_bot.py": "The smallest complete bot: one file, plays the first legal action.",
    "kaiser_bot.py": "The protocol loop in one file: import it and write decide().",
    "random.zip": "A random player (Python, zip with bot.py).",
    "greedy.zip": "A greedy player (Python, zip with bot.py).",
    "node_random.zip": "A random player in JavaScript (zip with bot.json manifest).",
    "mc.zip": "A Monte Carlo player (Python, zip): a strong starting point.",
}


def _ladder_or_main(slug: str | None) -> Ladder | None:
    if slug is not None:
        return get_object_or_404(Ladder, slug=slug)
    return Ladder.objects.filter(slug=MAIN_LADDER).first() or Ladder.objects.first()


def home(request: HttpRequest, slug: str | None = None) -> HttpResponse:
    """A ladder's leaderboard (the main ladder at /), its latest matches, and the way in."""
    ladder = _ladder_or_main(slug)
    page = _page_number(request.GET.get("page"))
    context = {
        "ladder": ladder,
        "ladders": list(Ladder.objects.filter(active=True).only("slug", "name")),
        "board": _board_html(ladder, page),
    }
    return render(request, "tournaments/home.html", context)


def _board_html(ladder: Ladder | None, page: int) -> str:
    """The leaderboard and the latest matches, the same for every visitor: rendered once per
    change of the board (page_selectors.board_version), then served from the cache."""
    key = f"board-html:{page_selectors.board_version(ladder=ladder)}:{page}" if ladder else None
    html = cache.get(key) if key else None
    if html is None:
        rows, total = ([], 0)
        if ladder is not None:
            rows, total = page_selectors.leaderboard_page(
                ladder=ladder, offset=(page - 1) * LEADERBOARD_ROWS, limit=LEADERBOARD_ROWS)
        html = render_to_string("tournaments/_board.html", {
            "ladder": ladder, "rows": rows, "total": total, "page": page,
            "pages": max(1, -(-total // LEADERBOARD_ROWS)),
            "latest": match_rows_html(page_selectors.latest_matches(ladder=ladder)
                                      if ladder else []),
            "unrated": page_selectors.unrated_entries(ladder=ladder) if ladder else [],
            "fit_missing": bool(rows) and all(r.board.fitted is None for r in rows),
        })
        if key:
            cache.set(key, html, 60)  # "N minutes ago" must not go stale for long
    return mark_safe(html)  # rendered by our own template, escaped there


def bot_activity_html(*, bot: Bot) -> str:
    """The bot page's public part (ratings, head to head, recent matches), the same for every
    visitor: rendered once per change of the bot's entries or matches (page_selectors.bot_facts),
    then served from the cache."""
    facts = page_selectors.bot_facts(bot=bot)
    key = f"bot-activity-html:{facts.version}"
    html = cache.get(key)
    if html is None:
        context = page_selectors.bot_activity(facts=facts)
        context["matches"] = match_rows_html(context["matches"])
        context["head_to_head_html"] = head_to_head_html(context["head_to_head"], bot=bot)
        html = render_to_string("tournaments/_bot_activity.html", context)
        cache.set(key, html, 60)  # "N minutes ago" must not go stale for long
    return mark_safe(html)  # rendered by our own template, escaped there


class _Links:
    """The URLs of the rows' links, from the URL conf: reverse() once per name, not per row."""

    def __init__(self) -> None:
        self.match = self._around("match-detail")
        self.bot = self._around("bot-detail")
        self.ladder = self._around("ladder-detail")
        self.tournament = self._around("tournament-detail")
        self.match_list = reverse("match-list")

    @staticmethod
    def _around(name: str) -> tuple[str, str]:
        # "/matches/0/" -> ("/matches/", "/"): the text before and after the one argument.
        before, _, after = reverse(name, args=["0"]).rpartition("0")
        return before, after


def _link(around: tuple[str, str], arg: object) -> str:
    return f"{around[0]}{arg}{around[1]}"


def match_rows_html(rows: list[dict[str, Any]]) -> SafeString:
    """The <tr>s of tournaments/_match_rows.html for page_selectors.match_rows. Built here, not
    in a template loop: the loop took about 0.1 ms a row (5 ms, near half the time of a list
    of 50), this a few microseconds. Every text from the database is escaped."""
    links = _Links()
    return mark_safe("".join(_match_row(m, links) for m in rows))  # escaped in _match_row


def _match_row(m: dict[str, Any], links: _Links) -> str:
    status = escape(m["status"])
    if m["status"] == Match.Status.FINISHED:
        result = f"<strong>{m['games_a']}–{m['games_b']}</strong>"
        result += ' <span class="badge">draw</span>' if m["score"] == 0.5 else ""
    else:
        result = f'<span class="status status-{status}">{status}</span>'
    if m["forfeit_player"]:
        player, reason = escape(m["forfeit_player"]), escape(m["forfeit_reason"])
        result += f' <span class="badge fault" title="{reason}">fault {player}: {reason}</span>'
    if m["kind"] == Match.Kind.TOURNAMENT:
        where = (f'<a href="{_link(links.tournament, m["tournament_id"])}">tournament</a> '
                 f'r{m["round"]}')
    elif m["kind"] == Match.Kind.CHALLENGE:
        where = "challenge"
    elif m["ladder_slug"]:
        where = (f'<a href="{_link(links.ladder, escape(m["ladder_slug"]))}">'
                 f'{escape(m["ladder_name"])}</a>')
    else:
        where = ""
    where += "" if m["rated"] else ' <small class="muted">unrated</small>'
    return (
        f'<tr class="match-row status-row-{status}"><td><a href="{_link(links.match, m["id"])}">'
        f'#{m["id"]}</a></td>\n<td>{_player(m, "a", links)}\n<span class="muted">vs</span>\n'
        f'{_player(m, "b", links)}</td>\n<td>{result}</td>\n<td class="hide-sm">{where}</td>\n'
        f'<td class="hide-sm"><time datetime="{m["iso"]}">{escape(m["ago"])} ago</time></td>'
        "</tr>\n")


def _player(m: dict[str, Any], side: str, links: _Links) -> str:
    won = "winner" if m[f"{side}_won"] else ""
    return (f'<a href="{_link(links.bot, m[f"{side}_bot"])}" class="{won}">'
            f'{escape(m[f"{side}_name"])}</a><small class="muted"> v{m[f"{side}_number"]}</small>')


def head_to_head_html(rows: list[dict[str, Any]], *, bot: Bot) -> SafeString:
    """The <tr>s of the bot page's head to head (page_selectors.head_to_head), built here for
    the reason match_rows_html is; each count links to the two bots' finished matches."""
    links = _Links()
    mine = escape(quote(bot.name, safe="/"))
    return mark_safe("".join(  # escaped here
        f'<tr><td><a href="{_link(links.bot, r["bot_id"])}">{escape(r["name"])}</a></td>'
        f'<td class="num"><a href="{links.match_list}?bot={mine}&amp;opponent='
        f'{escape(quote(r["name"], safe="/"))}&amp;status=finished" title="the matches">'
        f'{r["matches"]}</a></td>\n'
        f'<td class="num">{r["wins"]}</td><td class="num">{r["draws"]}</td>'
        f'<td class="num">{r["losses"]}</td><td class="num">{100 * r["share"]:.0f}%</td></tr>\n'
        for r in rows))


def _int_or_none(raw: str | None) -> int | None:
    """A whole number that fits the database's integers, else None."""
    raw = (raw or "").strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None


def _page_number(raw: str | None) -> int:
    """The page asked for: 1 when not given, a 404 unless a whole number 1 to MAX_PAGE."""
    if raw is None or raw == "":
        return 1
    number = _int_or_none(raw)
    if number is None or not 1 <= number <= MAX_PAGE:
        raise Http404("no such page")
    return number


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
        **_page_of(page_selectors.matches_light(matches).order_by("-id"), params.get("page")),
        "bot": filters.bot, "opponent": filters.opponent, "unknown": filters.unknown,
        "errors": errors, "ladders": Ladder.objects.only("slug", "name"),
        "tournaments": Tournament.objects.only("name").order_by("-created")[:100],
        "statuses": Match.Status.values, "results": match_filters.RESULTS,
        "filters": params, "tournament_id": filters.tournament, "query": query.urlencode(),
    }
    return render(request, "tournaments/match_list.html", context, status=400 if errors else 200)


def _page_of(matches: QuerySet[Match], raw: str | None) -> dict[str, Any]:
    """One page of matches and whether there is a next one. No COUNT(*): over a hundred
    thousand matches it costs more than the page itself."""
    number = _page_number(raw)
    start = (number - 1) * MATCHES_PER_PAGE
    rows = page_selectors.matches_slice(matches, start, start + MATCHES_PER_PAGE + 1)
    return {"matches": match_rows_html(rows[:MATCHES_PER_PAGE]), "number": number,
            "has_next": len(rows) > MATCHES_PER_PAGE}


def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_object_or_404(
        Match.objects.select_related("version_a__bot", "version_b__bot", "ladder", "tournament",
                                     "requested_by").defer("replay_gz", "stderr_a", "stderr_b"),
        pk=pk)
    owner_of = {side: v.bot.is_owned_by(request.user) or request.user.is_staff
                for side, v in (("a", match.version_a), ("b", match.version_b))}
    stderr = {}
    if any(owner_of.values()):
        texts = Match.objects.filter(pk=pk).values("stderr_a", "stderr_b")[0]
        stderr = {side: texts[f"stderr_{side}"] for side, mine in owner_of.items() if mine}
    forfeit = (match.forfeit if match_fault_whole_for(request.user, match)
               else forfeit_public(match.forfeit))
    pruned = page_selectors.match_replay_pruned(match=match)
    context = {"match": match, "stderr": stderr, "forfeit": forfeit or {},
               "has_replay": match.status == Match.Status.FINISHED and not pruned,
               "replay_pruned": pruned,
               "retention_days": settings.KAISER_REPLAY_RETENTION_DAYS}
    return render(request, "tournaments/match_detail.html", context)


def replay_viewer(request: HttpRequest) -> HttpResponse:
    """The viewer alone, for a replay file from the command line (opened or dropped)."""
    return render(request, "tournaments/replay_viewer.html", {})


def tournament_list(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/tournament_list.html",
                  {"tournaments": page_selectors.tournaments_page()})


def docs(request: HttpRequest) -> HttpResponse:
    files = [(name, text) for name, text in STARTER_FILES.items()
             if (EXAMPLES_DIR / name).is_file()]
    from kaiser_site.docs_pages import runner

    return render(request, "tournaments/docs.html", {"files": files, "runner": runner()})


def starter_file(request: HttpRequest, name: str) -> FileResponse:
    if name not in STARTER_FILES or not (EXAMPLES_DIR / name).is_file():
        raise Http404("no such starter file")
    return FileResponse((EXAMPLES_DIR / name).open("rb"), as_attachment=True, filename=name)


@login_required
@require_POST
def challenge(request: HttpRequest) -> HttpResponse:
    """A challenge from the signed-in author's bot to another bot, through the service."""
    opponent = get_object_or_404(Bot, pk=_int_or_none(request.POST.get("opponent")) or 0)
    mine = get_object_or_404(Bot, pk=_int_or_none(request.POST.get("bot")) or 0,
                             owner=request.user)
    versions = bot_active_version(bot=mine), bot_active_version(bot=opponent)
    ladder = _ladder_or_main(None)
    if None in versions or ladder is None:
        messages.error(request, "Both bots need an active version to play.")
        return redirect("bot-detail", pk=opponent.pk)
    try:
        match = services.challenge_create(
            user=request.user, version=_version(versions[0]),
            opponent=_version(versions[1]), rated=False, ladder=ladder)
    except services.RateLimited as limited:
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
