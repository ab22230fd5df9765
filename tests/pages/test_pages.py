"""Every page through Django's test client, anonymous and signed in: what a visitor sees, who
sees what, the empty states, and that no page's query count grows with the rows it shows."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bots.models import BotVersion
from ladder import ratings as ladder_ratings
from ladder import selectors as ladder_selectors
from ladder import services as ladder_services
from ladder.models import Ladder
from matches import selectors as match_selectors
from matches import services as match_services
from matches.models import Match, MatchSide
from tests.factories import played_by, share_of
from tests.pages.conftest import Arena, play
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

NAV = ["Leaderboard", "Bots", "Matches", "Tournaments", "Write a bot"]


def _text(response: object) -> str:
    return html.unescape(response.content.decode())  # type: ignore[attr-defined]


def _title(body: str) -> str:
    found = re.search(r"<title>(.*?)</title>", body, re.S)
    assert found, "the page has no <title>"
    return found.group(1).strip()


def _pages(arena: Arena, tournament: Tournament, *, signed_in: bool = False
           ) -> list[tuple[str, str]]:
    match = arena.matches[0]
    if signed_in:
        own = [(reverse("account"), "Your account"),
               (reverse("bot-upload", args=[arena.mine.bot_id]), "Upload a version"),
               (reverse("bot-create"), "New bot")]
    else:
        own = [(reverse("login"), "Log in"), (reverse("signup"), "Sign up")]
    return own + [
        (reverse("home"), "Main ladder"),
        (reverse("ladder-detail", args=["main"]), "Main ladder"),
        (reverse("bot-list"), "Bots"),
        (reverse("bot-detail", args=[arena.mine.bot_id]), "olivias-bot"),
        (reverse("match-list"), "Matches"),
        (reverse("match-detail", args=[match.pk]), f"Match #{match.pk}"),
        (reverse("tournament-list"), "Tournaments"),
        (reverse("tournament-detail", args=[tournament.pk]), tournament.name),
        (reverse("docs"), "Write a bot"),
        (reverse("replay-viewer"), "Replay viewer"),
    ]


@pytest.fixture
def tournament(arena: Arena) -> Tournament:
    t = services.tournament_create(name="Autumn cup", format=Tournament.Format.ROUND_ROBIN,
                                   versions=[arena.mine, arena.theirs, arena.greedy])
    first = t.matches.order_by("id").first()
    assert first is not None
    assert match_services.match_play(match_id=first.pk, worker="page-tests") == "finished"
    return t


@pytest.mark.parametrize("who", ["anonymous", "signed in"])
def test_every_page_answers_with_a_title_and_the_navigation(
    who: str, arena: Arena, tournament: Tournament, logged_in: Client
) -> None:
    client = logged_in if who == "signed in" else Client()
    for url, title in _pages(arena, tournament, signed_in=who == "signed in"):
        response = client.get(url)
        assert response.status_code == 200, url
        body = _text(response)
        assert _title(body).startswith(title), (url, _title(body))
        for link in NAV:
            assert f">{link}</a>" in body, (url, link)
        assert ("Log out" in body) == (who == "signed in"), url


def test_pages_for_signed_in_authors_only_send_visitors_to_log_in(arena: Arena) -> None:
    for url in (reverse("account"), reverse("bot-upload", args=[arena.mine.bot_id])):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_home_shows_the_leaderboard_with_elo_fitted_interval_game_count_and_win_rate(
    arena: Arena,
) -> None:
    body = _text(Client().get(reverse("home")))
    rows = re.findall(r'<tr data-bot="([^"]+)">(.*?)</tr>', body, re.S)
    names = [name for name, _ in rows]
    assert set(names) == {"olivias-bot", "oscars-bot", "greedy", "random"}
    entries = {e.version.bot.name: e for e in arena.ladder.entries.select_related("version__bot")}
    # Ranked by Elo while no fit is ready (fit-missing below), the fitted order's fallback.
    assert names == sorted(names, key=lambda n: -entries[n].elo)
    mine = dict(rows)["olivias-bot"]
    assert f'data-label="Elo">{entries["olivias-bot"].elo:.0f}</td>' in mine
    assert re.search(r"<strong>\d+</strong> <small class=\"muted interval\">\d+–\d+</small>", mine)
    played = played_by(arena.mine).filter(ladder=arena.ladder, status="finished").count()
    assert (f'<td class="num rated" data-label="Rated matches">'
            f"{entries['olivias-bot'].games}</td>") in mine
    assert played == entries["olivias-bot"].games
    assert re.search(r"\d+%", mine)
    assert "<svg class=\"spark" in mine
    assert "anchor" in dict(rows)["greedy"]


def test_home_lists_the_latest_matches_and_the_call_to_action(arena: Arena) -> None:
    body = _text(Client().get(reverse("home")))
    newest = Match.objects.filter(status="finished").order_by("-finished", "-id").first()
    assert newest is not None
    assert f'href="{reverse("match-detail", args=[newest.pk])}"' in body
    assert "Write your first bot" in body
    assert f'href="{reverse("docs")}"' in body


def test_other_ladders_are_one_click_away_from_home(arena: Arena) -> None:
    Ladder.objects.create(name="No trump league", slug="nt", rules="official")
    body = _text(Client().get(reverse("home")))
    assert f'href="{reverse("ladder-detail", args=["nt"])}"' in body
    other = _text(Client().get(reverse("ladder-detail", args=["nt"])))
    assert "<h1>No trump league</h1>" in other
    assert "No bots on this ladder yet" in other
    assert "No matches yet." in other


def test_unknown_ladder_is_not_found(db: None) -> None:
    assert Client().get(reverse("ladder-detail", args=["nope"])).status_code == 404


def test_empty_site_says_so_on_every_list(db: None) -> None:
    Ladder.objects.filter(slug="main").exists()  # the migration's main ladder, no entries
    assert "No bots on this ladder yet" in _text(Client().get(reverse("home")))
    assert "No matches match these filters." in _text(Client().get(reverse("match-list")))
    assert "No tournaments yet." in _text(Client().get(reverse("tournament-list")))
    assert "No bots yet." in _text(Client().get(reverse("bot-list")))


# --- Bot page ---------------------------------------------------------------------------------


def test_bot_page_shows_owner_versions_rating_chart_head_to_head_and_matches(
    arena: Arena,
) -> None:
    body = _text(Client().get(reverse("bot-detail", args=[arena.mine.bot_id])))
    assert "by olivia" in body
    assert "olivias-bot plays builtin:greedy." in body
    assert '<span class="status status-active">checked</span>' in body
    assert '<span class="badge playing">plays</span>' in body
    assert '<svg class="chart"' in body
    h2h = body.split("<h2>Head to head</h2>")[1].split("<h2>")[0]
    opponents = re.findall(r'<tr><td><a href="/bots/\d+/">([^<]+)</a></td><td class="num">'
                           r'<a [^>]+>(\d+)</a>', h2h)
    # olivias-bot met oscars-bot three times (once with the fault), greedy and random once.
    assert dict(opponents) == {"oscars-bot": "3", "greedy": "1", "random": "1"}
    recent = body.split("<h2>Recent matches</h2>")[1]
    for match in arena.matches:
        if arena.mine.pk in match.version_ids:
            assert f'href="{reverse("match-detail", args=[match.pk])}"' in recent


def test_head_to_head_counts_wins_draws_and_losses_from_the_bots_side(arena: Arena) -> None:
    body = _text(Client().get(reverse("bot-detail", args=[arena.theirs.bot_id])))
    h2h = body.split("<h2>Head to head</h2>")[1].split("<h2>")[0]
    row = re.search(r'olivias-bot</a></td><td class="num"><a [^>]+>3</a></td>\s*'
                    r'<td class="num">(\d+)</td><td class="num">(\d+)</td>'
                    r'<td class="num">(\d+)</td>', h2h)
    assert row, h2h
    wins, draws, losses = map(int, row.groups())
    expected = [0, 0, 0]
    for m in played_by(arena.mine, arena.theirs).filter(status="finished"):
        share = share_of(m, arena.theirs)
        expected[0 if share > 0.5 else 1 if share == 0.5 else 2] += 1
    assert [wins, draws, losses] == expected
    assert losses >= 1  # the fault was a loss for oscars-bot


def _h2h_rows(body: str) -> dict[str, tuple[int, int, int, int, str]]:
    """Head to head on a bot page: opponent -> (matches, wins, draws, losses, share)."""
    h2h = body.split("<h2>Head to head</h2>")[1].split("<h2>")[0]
    rows = re.findall(r'<tr><td><a href="/bots/\d+/">([^<]+)</a></td><td class="num">'
                      r'<a [^>]+>(\d+)</a></td>\s*<td class="num">(\d+)</td>'
                      r'<td class="num">(\d+)</td><td class="num">(\d+)</td>'
                      r'<td class="num">([^<]+)</td></tr>', h2h)
    return {name: (int(n), int(w), int(d), int(lo), share) for name, n, w, d, lo, share in rows}


def test_head_to_head_shows_the_most_played_opponents_with_their_share_and_how_many_there_are(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:

    monkeypatch.setattr(match_selectors, "HEAD_TO_HEAD_ROWS", 1)
    body = _text(Client().get(reverse("bot-detail", args=[arena.mine.bot_id])))
    rows = _h2h_rows(body)
    assert list(rows) == ["oscars-bot"]  # three matches; greedy and random one each
    games = [share_of(m, arena.mine)
             for m in played_by(arena.mine, arena.theirs).filter(status="finished")]
    assert rows["oscars-bot"][0] == len(games) == 3
    assert rows["oscars-bot"][4] == f"{100 * sum(games) / 3:.0f}%"
    assert "The 1 most-played of 3 opponents" in body


def test_the_bot_page_shows_a_finished_matchs_rating_and_head_to_head_at_once(
    arena: Arena,
) -> None:
    url = reverse("bot-detail", args=[arena.theirs.bot_id])
    before = _text(Client().get(url))  # the public part is cached from here on
    assert _text(Client().get(url)) == before
    played = _h2h_rows(before)["greedy"][0]
    match = play(arena.greedy, arena.theirs, ladder=arena.ladder)
    after = _text(Client().get(url))
    assert _h2h_rows(after)["greedy"][0] == played + 1
    entry = arena.ladder.entries.get(version=arena.theirs)
    assert (f"Elo <strong>{entry.elo:.0f}</strong> after {entry.games} rated matches"
            in after)
    assert f'href="/matches/{match.pk}/"' in after.split("<h2>Recent matches</h2>")[1]


def test_the_bot_page_shows_a_match_put_back_in_the_queue_at_once(arena: Arena) -> None:
    url = reverse("bot-detail", args=[arena.theirs.bot_id])
    match = match_services.match_create(versions=[arena.greedy, arena.theirs],
                                  kind=Match.Kind.LADDER, conditions=arena.ladder,
                                  ladder=arena.ladder, rated=True)
    claim = match_services.match_start(match_id=match.pk, worker="page-tests")
    assert claim is not None

    def row() -> str:
        recent = _text(Client().get(url)).split("<h2>Recent matches</h2>")[1]
        return recent.split(f'href="/matches/{match.pk}/"')[1].split("</tr>")[0]

    assert "status-running" in row()
    assert match_services.match_release(match_id=match.pk, token=claim[1], error="worker stopped")
    assert "status-queued" in row()


def test_the_bot_page_shows_a_new_anchor_rating_at_once(arena: Arena) -> None:
    url = reverse("bot-detail", args=[arena.theirs.bot_id])
    assert ", anchor)" not in _text(Client().get(url))
    ladder_services.ladder_anchor_set(ladder=arena.ladder, version=arena.theirs, rating=1234.0)
    assert "Elo <strong>1234</strong>" in (body := _text(Client().get(url)))
    assert ", anchor)" in body


def test_names_are_escaped_in_the_match_rows_and_the_head_to_head(arena: Arena) -> None:
    from bots.models import Bot

    Bot.objects.filter(pk=arena.theirs.bot_id).update(name='<i>o&"\'</i>')
    MatchSide.objects.filter(match=arena.matches[-1]).exclude(fault="").update(
        fault="<b>late</b>")
    # Django writes the quotes as &quot; &#x27;, Jinja2 (the rows) as &#34; &#39;: both escape.
    escaped = "&lt;i&gt;o&amp;(&quot;|&#34;)(&#x27;|&#39;)&lt;/i&gt;"
    for url in (reverse("match-list"), reverse("bot-detail", args=[arena.mine.bot_id])):
        body = Client().get(url).content.decode()
        assert "<i>" not in body and "<b>late" not in body
        assert re.search(f">{escaped}</a>", body)
        assert "fault B: &lt;b&gt;late&lt;/b&gt;" in body
    h2h = Client().get(reverse("bot-detail", args=[arena.mine.bot_id])).content.decode().split(
        "<h2>Head to head</h2>")[1].split("<h2>")[0]
    assert re.search(f">{escaped}</a></td>", h2h)
    assert "opponent=%3Ci%3Eo%26%22%27%3C/i%3E&amp;status=finished" in h2h


def test_check_stderr_is_shown_to_the_bots_owner_only(arena: Arena, logged_in: Client,
                                                      other: User) -> None:
    BotVersion.objects.filter(pk=arena.mine.pk).update(check_stderr="my private debug line")
    url = reverse("bot-detail", args=[arena.mine.bot_id])
    assert "my private debug line" in _text(logged_in.get(url))
    assert "my private debug line" not in _text(Client().get(url))
    stranger = Client()
    stranger.force_login(other)
    assert "my private debug line" not in _text(stranger.get(url))


def test_challenge_button_is_for_signed_in_authors_with_an_active_bot(
    arena: Arena, logged_in: Client
) -> None:
    theirs = reverse("bot-detail", args=[arena.theirs.bot_id])
    assert 'action="/challenge/"' not in _text(Client().get(theirs))
    assert 'action="/challenge/"' in _text(logged_in.get(theirs))
    own = reverse("bot-detail", args=[arena.mine.bot_id])
    assert 'action="/challenge/"' not in _text(logged_in.get(own))  # no bot of hers to send
    nobody = Client()
    nobody.force_login(User.objects.create_user(username="newcomer"))
    assert 'action="/challenge/"' not in _text(nobody.get(theirs))


def test_a_challenge_creates_an_unrated_match_and_opens_its_page(
    arena: Arena, logged_in: Client
) -> None:
    before = Match.objects.count()
    response = logged_in.post(reverse("challenge"),
                              {"bot": arena.mine.bot_id, "opponent": arena.theirs.bot_id})
    match = Match.objects.order_by("-id").first()
    assert match is not None and Match.objects.count() == before + 1
    assert response.status_code == 302
    assert response["Location"] == reverse("match-detail", args=[match.pk])
    assert (match.kind, match.rated, match.version_ids) == (
        Match.Kind.CHALLENGE, False, [arena.mine.pk, arena.theirs.pk])
    page = _text(logged_in.get(response["Location"]))
    assert "Challenge sent: olivias-bot against oscars-bot." in page
    assert "No replay yet: the match is queued." in page


def test_a_challenge_with_someone_elses_bot_is_refused(arena: Arena, logged_in: Client) -> None:
    response = logged_in.post(reverse("challenge"),
                              {"bot": arena.theirs.bot_id, "opponent": arena.mine.bot_id})
    assert response.status_code == 404
    assert not Match.objects.filter(kind=Match.Kind.CHALLENGE).exists()


def test_a_challenge_over_the_hourly_limit_says_why(arena: Arena, logged_in: Client,
                                                    settings: object) -> None:
    settings.KAISER_CHALLENGES_PER_HOUR = 1  # type: ignore[attr-defined]
    data = {"bot": arena.mine.bot_id, "opponent": arena.theirs.bot_id}
    logged_in.post(reverse("challenge"), data)
    response = logged_in.post(reverse("challenge"), data, follow=True)
    assert "at most 1 challenges an hour" in _text(response)
    assert Match.objects.filter(kind=Match.Kind.CHALLENGE).count() == 1


def test_challenge_needs_a_login_and_a_post(arena: Arena, logged_in: Client) -> None:
    anonymous = Client().post(reverse("challenge"), {"bot": 1, "opponent": 2})
    assert anonymous.status_code == 302
    assert logged_in.get(reverse("challenge")).status_code == 405


# --- Matches ----------------------------------------------------------------------------------


def _listed(client: Client, query: str) -> list[int]:
    body = _text(client.get(reverse("match-list") + query))
    return [int(n) for n in re.findall(r'<a href="/matches/(\d+)/">#\d+</a>', body)]


def test_match_list_filters_by_bot_result_faults_ladder_and_tournament(
    arena: Arena, tournament: Tournament
) -> None:
    client = Client()
    everything = _listed(client, "")
    assert everything == sorted(everything, reverse=True)
    assert set(everything) == set(Match.objects.values_list("pk", flat=True))
    mine = arena.mine
    of_mine = set(played_by(mine).values_list("pk", flat=True))
    assert set(_listed(client, "?bot=OLIVIAS-BOT")) == of_mine
    won = {m.pk for m in played_by(mine).filter(status="finished") if share_of(m, mine) > 0.5}
    assert set(_listed(client, "?bot=olivias-bot&result=won")) == won
    assert set(_listed(client, "?result=draw")) == set(
        Match.objects.filter(score=0.5).values_list("pk", flat=True))
    assert _listed(client, "?faults=1") == [arena.matches[-1].pk]
    assert set(_listed(client, f"?tournament={tournament.pk}")) == set(
        tournament.matches.values_list("pk", flat=True))
    assert set(_listed(client, "?ladder=main&status=finished")) == set(
        Match.objects.filter(ladder=arena.ladder, status="finished").values_list("pk", flat=True))
    assert "No bot is called “nobody”" in _text(client.get(reverse("match-list") + "?bot=nobody"))


def test_match_list_pages_keep_the_filters(arena: Arena, bulk_rows: Callable[..., None]) -> None:
    bulk_rows(2, 120)
    client = Client()
    first = _text(client.get(reverse("match-list") + "?ladder=main"))
    assert 'href="?ladder=main&page=2" rel="next"' in first
    assert 'rel="prev"' not in first
    pages = [_listed(client, f"?ladder=main&page={n}") for n in (1, 2, 3)]
    assert [len(p) for p in pages] == [50, 50, Match.objects.count() - 100]
    assert sorted(pages[0] + pages[1] + pages[2], reverse=True) == pages[0] + pages[1] + pages[2]
    last = _text(client.get(reverse("match-list") + "?ladder=main&page=3"))
    assert 'rel="next"' not in last
    assert 'href="?ladder=main&page=2" rel="prev"' in last


def test_match_page_loads_its_replay_in_the_viewer_and_shows_the_fault(arena: Arena) -> None:
    faulty = arena.matches[-1]
    body = _text(Client().get(reverse("match-detail", args=[faulty.pk])))
    assert f'data-replay-url="/api/v1/matches/{faulty.pk}/replay/"' in body
    assert ("Fault: player B (oscars-bot) forfeited: <strong>timeout</strong> "
            "(no reply within 1000 ms), seat ") in body
    replay = Client().get(f"/api/v1/matches/{faulty.pk}/replay/")
    assert replay.status_code == 200
    assert replay.json()["result"]["forfeit"]["reason"] == "timeout"


def test_match_page_shows_a_bots_stderr_to_its_owner_only(arena: Arena, other: User,
                                                          logged_in: Client) -> None:
    url = reverse("match-detail", args=[arena.matches[-1].pk])
    oscar = Client()
    oscar.force_login(other)
    assert "B's secret log line" in _text(oscar.get(url))
    assert "B's secret log line" not in _text(logged_in.get(url))  # olivia owns A, not B
    assert "B's secret log line" not in _text(Client().get(url))


def test_match_page_of_a_queued_match_has_no_viewer(arena: Arena) -> None:
    match = match_services.match_create(versions=[arena.mine, arena.greedy],
                                  kind=Match.Kind.LADDER, conditions=arena.ladder,
                                  ladder=arena.ladder)
    body = _text(Client().get(reverse("match-detail", args=[match.pk])))
    assert 'id="viewer"' not in body
    assert "No replay yet: the match is queued." in body


def test_unknown_match_is_not_found(db: None) -> None:
    assert Client().get(reverse("match-detail", args=[999999])).status_code == 404


# --- Tournaments ------------------------------------------------------------------------------


def test_tournament_list_shows_format_entrants_status_and_progress(
    tournament: Tournament,
) -> None:
    body = _text(Client().get(reverse("tournament-list")))
    row = body.split(f'href="/tournaments/{tournament.pk}/">Autumn cup</a>')[1].split("</tr>")[0]
    assert "round robin" in row
    assert '<td class="num">3</td>' in row
    assert "running" in row
    assert '<progress max="3" value="1"></progress>' in row


def test_tournament_page_shows_standings_rounds_and_a_live_progress_bar(
    tournament: Tournament,
) -> None:
    body = _text(Client().get(reverse("tournament-detail", args=[tournament.pk])))
    assert f'data-url="/api/v1/tournaments/{tournament.pk}/"' in body
    assert '<progress id="t-progress" max="3" value="1"></progress>' in body
    assert "1 of 3 matches played" in body
    standings = body.split('<table id="standings"')[1].split("</table>")[0]
    assert [n for n in ("olivias-bot", "oscars-bot", "greedy") if n in standings]
    assert body.count('class="round"') == 3  # a round robin of three: three rounds
    assert "js/live.js" in body


def test_finished_knockout_shows_the_bracket_and_the_champion(arena: Arena) -> None:
    t = services.tournament_create(name="Cup", format=Tournament.Format.KNOCKOUT,
                                   versions=[arena.mine, arena.theirs, arena.greedy])
    while (queued := t.matches.filter(status="queued").first()) is not None:
        match_services.match_play(match_id=queued.pk, worker="page-tests")
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    body = _text(Client().get(reverse("tournament-detail", args=[t.pk])))
    assert "<h2>Bracket</h2>" in body
    assert "<strong>champion</strong>" in body
    assert "bye" in body  # three entrants: the top seed waits in round one


# --- Upload, account, docs --------------------------------------------------------------------


def test_upload_page_offers_drag_and_drop_and_follows_the_check_through_the_api(
    arena: Arena, logged_in: Client
) -> None:
    body = _text(logged_in.get(reverse("bot-upload", args=[arena.mine.bot_id])))
    assert 'id="drop-zone"' in body
    assert f'data-api="/api/v1/bots/{arena.mine.bot_id}/versions/"' in body
    assert 'type="file"' in body
    assert "js/live.js" in body


def test_upload_page_is_the_owners_only(arena: Arena, logged_in: Client) -> None:
    assert logged_in.get(reverse("bot-upload", args=[arena.theirs.bot_id])).status_code == 403


def test_account_page_shows_the_api_token(owner: User, logged_in: Client) -> None:
    from accounts.services import user_token

    body = _text(logged_in.get(reverse("account")))
    assert f'<code class="token" id="api-token">{user_token(user=owner).key}</code>' in body


def test_docs_page_links_the_starter_kit_and_explains_local_testing(db: None) -> None:
    body = _text(Client().get(reverse("docs")))
    assert 'href="/docs/starter/minimal_bot.py"' in body
    assert 'href="/docs/starter/random.zip"' in body
    assert "python3 kaiser-engine.pyz match my_bot.py builtin:mc" in body
    assert 'href="/docs/runner/kaiser-engine.pyz"' in body
    assert '"type": "hello"' in body


def test_starter_files_download_as_they_are_in_the_examples(db: None) -> None:
    from kaiser_site.docs_pages import EXAMPLES_DIR

    response = Client().get(reverse("starter-file", args=["minimal_bot.py"]))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == (EXAMPLES_DIR / "minimal_bot.py").read_bytes()
    assert "attachment" in response["Content-Disposition"]
    for name in ("build_zips.py", "..%2Fmanage.py", "nope.zip"):
        assert Client().get(f"/docs/starter/{name}").status_code == 404


# --- Query counts -----------------------------------------------------------------------------


def _queries(client: Client, url: str) -> int:
    """Queries of a first visit: nothing of this data in the cache yet (the home page caches
    its board until the next result, and each test has a cache namespace of its own)."""
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("who", ["anonymous", "signed in"])
def test_no_page_makes_more_queries_for_more_rows(
    who: str, arena: Arena, tournament: Tournament, logged_in: Client,
    bulk_rows: Callable[..., None], django_assert_max_num_queries: Callable[..., object],
) -> None:
    client = logged_in if who == "signed in" else Client()
    urls = [u for u, _ in _pages(arena, tournament, signed_in=who == "signed in")]
    few = {url: _queries(client, url) for url in urls}
    bulk_rows(60, 400)  # sixty more bots on the leaderboard, hundreds of matches
    services.tournament_create(name="Second", format=Tournament.Format.SWISS, rounds=2,
                               versions=list(BotVersion.objects.filter(bot__name__startswith="bulk")))
    for url in urls:  # the bulk rows changed every board: its cache does not answer
        with django_assert_max_num_queries(few[url]):  # type: ignore[operator]
            assert client.get(url).status_code == 200


def test_rows_really_grow_in_the_query_count_test(arena: Arena, bulk_rows: Callable[..., None]
                                                  ) -> None:
    bulk_rows(60, 400)
    body = _text(Client().get(reverse("home")))
    assert body.count("<tr data-bot=") == 50
    assert "ranks 1–50 of 64" in body
    second = _text(Client().get(reverse("home") + "?page=2"))
    assert second.count("<tr data-bot=") == 14
    assert '<td class="rank">64</td>' in second
    assert _text(Client().get(reverse("match-list"))).count('<tr class="match-row') == 50


def test_the_bot_page_shows_a_new_match_at_once_though_its_public_part_is_cached(
    arena: Arena,
) -> None:
    url = reverse("bot-detail", args=[arena.theirs.bot_id])
    Client().get(url)
    match = match_services.match_create(versions=[arena.greedy, arena.theirs],
                                  kind=Match.Kind.LADDER, conditions=arena.ladder,
                                  ladder=arena.ladder, rated=True)
    queued = _text(Client().get(url))
    assert f'href="/matches/{match.pk}/"' in queued.split("<h2>Recent matches</h2>")[1]
    assert '<span class="status status-queued">queued</span>' in queued
    assert match_services.match_play(match_id=match.pk, worker="page-tests") == "finished"
    finished = _text(Client().get(url)).split("<h2>Recent matches</h2>")[1]
    row = finished.split(f'href="/matches/{match.pk}/"')[1].split("</tr>")[0]
    assert "status-queued" not in row
    assert re.search(r"<strong>\d–\d</strong>", row)


def test_a_large_ladders_page_shows_elo_without_waiting_for_the_fit(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:

    def too_slow(**kwargs: object) -> None:
        raise AssertionError("the page fitted a large ladder")

    monkeypatch.setattr(ladder_selectors, "FIT_INLINE_MAX", 3)
    monkeypatch.setattr(ladder_ratings, "ratings_fit", too_slow)
    body = _text(Client().get(reverse("home")))
    assert body.count("<tr data-bot=") == 4
    assert 'id="fit-missing"' in body
    mine = body.split('<tr data-bot="olivias-bot">')[1].split("</tr>")[0]
    assert '<td class="num fitted" data-label="Fitted">–</td>' in mine


def test_home_board_is_served_from_the_cache_until_the_next_result(arena: Arena) -> None:
    client = Client()
    client.get(reverse("home"))
    with CaptureQueriesContext(connection) as cached:
        first = _text(client.get(reverse("home")))
    entry = arena.ladder.entries.get(version=arena.greedy)
    assert f'data-label="Elo">{entry.elo:.0f}</td>' in first.split('data-bot="greedy"')[1]
    match = play(arena.greedy, arena.random, ladder=arena.ladder)
    with CaptureQueriesContext(connection) as fresh:
        after = _text(client.get(reverse("home")))
    entry.refresh_from_db()
    greedy_row = after.split('<tr data-bot="greedy">')[1].split("</tr>")[0]
    # one more rated match
    assert f'<td class="num rated" data-label="Rated matches">{entry.games}</td>' in greedy_row
    assert f'href="/matches/{match.pk}/"' in after  # on top of the latest matches
    assert len(cached) < len(fresh)


def test_the_leaderboard_says_which_rating_orders_it_and_links_the_explanation(
        arena: Arena) -> None:
    """Issue 43: the leaderboard is ordered by the fitted rating (the order that converges),
    Elo beside it, one line saying so; the API says the same."""
    ladder_services.ladder_fits_refresh()
    fitted = ladder_selectors.ladder_fit(ladder=arena.ladder)
    assert fitted
    body = Client().get(reverse("home")).content.decode()
    order = body.split('id="board-order"')[1].split("</p>")[0]
    assert "Ordered by the fitted rating</strong>, Elo beside it" in order
    assert "fewer than 20 rated matches" in order
    rows = re.findall(r'<tr data-bot="([^"]+)">', body)
    entries = {e.version.bot.name: e for e in arena.ladder.entries.select_related("version__bot")}
    assert rows == sorted(rows, key=lambda n: (-fitted[entries[n].version_id].rating,
                                               entries[n].pk))
    explained = body.split('id="ratings-explained"')[1].split("</p>")[0]
    # What a point of Elo means, in one line (ladder.ratings.elo_expected at 100 and 400).
    assert "100 points above another is expected to take 0.64 of a match" in explained
    assert "400 points above, 0.91" in explained
    link = re.search(r'href="([^"]+)">How the two ratings work', explained)
    assert link is not None
    page = Client().get(link.group(1))
    assert page.status_code == 200
    assert "Why the fitted rating differs" in page.content.decode()
    api = Client().get(f"/api/v1/ladders/{arena.ladder.slug}/").json()
    assert api["ordered_by"] == "fitted" and "fitted rating" in api["order"]
    assert [r["name"] for r in api["leaderboard"]] == rows
    assert [r["rank"] for r in api["leaderboard"]] == list(range(1, len(rows) + 1))


def test_the_replay_api_reads_a_match_in_one_query_and_its_fault_in_one_more(
    arena: Arena, settings: Any
) -> None:
    """The match row with the replay's key and hash in one query (the replay itself from the
    store); a match with a fault also reads its sides with their versions and bots, to know
    whether the asker sees the fault whole."""
    settings.KAISER_PAGE_CACHE = False  # the API's shared cache would answer the second time
    clean, faulty = arena.matches[0], arena.matches[-1]
    assert clean.fault_side is None and faulty.fault_side is not None
    for match, queries in ((clean, 1), (faulty, 2)):
        url = f"/api/v1/matches/{match.pk}/replay/"
        with CaptureQueriesContext(connection) as captured:
            response = Client().get(url, HTTP_ACCEPT="application/json")
        assert response.status_code == 200
        assert response.json()["result"] == match.replay()["result"]
        assert len(captured) == queries, [q["sql"] for q in captured]


def test_the_match_list_and_the_leaderboard_say_just_now(arena: Arena, client: Client) -> None:
    """Issue 43: rows played a moment ago read "just now", never "0 minutes ago"."""
    for url in ("/matches/", f"/ladders/{arena.ladder.slug}/"):
        page = client.get(url).content.decode()
        assert "just now" in page, url
        assert "0\xa0minutes" not in page and "0 minutes" not in page, url
