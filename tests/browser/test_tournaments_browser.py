"""Tournaments in headless Chromium, played by a real Celery worker: staff create a round robin
of six and a knockout of five (three byes) on the "New tournament" page, authors enter an open
Swiss from the home page and their bot's page; each runs to its end on the worker while the
page follows it live, and the crosstable, standings and bracket on the page are checked
against the matches stored in the database (worked out here from the rows, not from the code
that draws the page).

The bots are the built-in players (house versions, or an author's), two games a match."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from bots.models import Bot, BotVersion
from ladder import services as ladder_services
from matches.models import Match
from tests.browser import test_browser
from tests.tournaments import sides, test_worker
from tournaments import services
from tournaments.models import Tournament, TournamentBye
from tournaments.tasks import tournaments_start_due

# The fixtures of the other browser tests (Chromium, a page that fails on JavaScript errors)
# and of the worker tests (a real Celery worker on a queue of its own).
browser, page, start_worker = test_browser.browser, test_browser.page, test_worker.start_worker
ARTIFACTS, shot = test_browser.ARTIFACTS, test_browser.shot

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

PASSWORD = "a-long-browser-password-42"
RUN_TIMEOUT = 150_000  # ms: a tournament of two-game matches of built-in bots on the worker


@pytest.fixture
def arena(settings: Any, start_worker: Any) -> Any:
    """The house bots and a real worker on a queue of its own."""
    ladder_services.house_bots_ensure()
    ARTIFACTS.mkdir(exist_ok=True)
    return start_worker()


def _user(name: str, *, staff: bool = False) -> User:
    return User.objects.create_user(name, password=PASSWORD, is_staff=staff)


def _bot(owner: User, name: str, spec: str = "builtin:greedy") -> BotVersion:
    """A bot of `owner` whose first version is the built-in player `spec`, active at once."""
    return BotVersion.objects.create(
        bot=Bot.objects.create(owner=owner, name=name), number=1, kind=BotVersion.Kind.BUILTIN,
        builtin=spec, status=BotVersion.Status.ACTIVE, reason="built-in player",
        checked=timezone.now())


def log_in(page: Page, base: str, username: str) -> None:
    page.goto(base + reverse("login"))
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".nav").get_by_role("link", name=username, exact=True)).to_be_visible()


def new_tournament(page: Page, base: str, *, name: str, format: str, bots: list[str],
                   rounds: int = 1) -> Tournament:
    """Fill the staff's form as a person would: the entrants found by name one by one."""
    page.goto(base + "/tournaments/")
    page.get_by_role("link", name="New tournament").click()
    expect(page.locator("h1")).to_have_text("New tournament")
    page.fill("#id_name", name)
    page.select_option("#id_format", format)
    page.fill("#id_rounds", str(rounds))
    page.fill("#id_games_per_match", "2")
    page.fill("#id_move_ms", "500")
    page.fill("#id_bank_ms", "5000")
    for bot in bots:
        page.fill("#entrant-search", bot)
        page.click("#entrant-add")
    expect(page.locator("#id_entrants")).to_have_value("\n".join(bots) + "\n")
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("h1")).to_have_text(name)
    return Tournament.objects.get(name=name)


def run_to_the_end(page: Page, tournament: Tournament) -> Tournament:
    """Watch the page follow the tournament live (no reload) until the winner banner."""
    expect(page.locator("#t-status")).to_have_text("finished", timeout=RUN_TIMEOUT)
    expect(page.locator("#winner")).to_be_visible(timeout=10_000)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    matches = list(tournament.matches.all())
    assert matches and all(m.status == Match.Status.FINISHED for m in matches)
    expect(page.locator("#t-count")).to_have_text(
        f"{len(matches)} of {len(matches)} matches played")
    champion = tournament.entrants.get(final_rank=1).version.bot.name
    expect(page.locator("#winner")).to_contain_text(f"{champion} wins {tournament.name}")
    return tournament


# --- What the stored rows say -----------------------------------------------------------------


def _name(version_id: int) -> str:
    return BotVersion.objects.select_related("bot").get(pk=version_id).bot.name


def _points_from_rows(tournament: Tournament) -> dict[str, dict[str, float]]:
    """Each bot's points, wins, draws, losses, byes, games won and Buchholz, from the rows."""
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    met: dict[str, list[str]] = defaultdict(list)
    for m in tournament.matches.all():
        (a, won_a), (b, won_b) = ((_name(s.version_id), s.games) for s in sides.sides(m))
        share = 1.0 if won_a > won_b else 0.0 if won_a < won_b else 0.5
        for me, other, mine, games in ((a, b, share, won_a), (b, a, 1 - share, won_b)):
            rows[me]["points"] += mine
            rows[me]["games"] += games
            rows[me]["W" if mine == 1 else "L" if mine == 0 else "D"] += 1
            met[me].append(other)
    for bye in TournamentBye.objects.filter(tournament=tournament):
        rows[_name(bye.version_id)]["points"] += 1
        rows[_name(bye.version_id)]["byes"] += 1
    for me in rows:
        rows[me]["buchholz"] = sum(rows[o]["points"] for o in met[me])
    return rows


STANDINGS = """() => [...document.querySelectorAll('#standings tbody tr')].map(tr => {
  const cells = [...tr.querySelectorAll('td')].map(td => td.textContent.trim());
  const head = [...document.querySelectorAll('#standings thead th')].map(th => th.textContent);
  const row = Object.fromEntries(head.map((h, i) => [h, cells[i]]));
  row.link = tr.querySelector('td a').getAttribute('href');
  return row; })"""


def check_standings(page: Page, tournament: Tournament) -> None:
    """Every bot linked to its page, the numbers those of the rows, in the final order."""
    shown = page.evaluate(STANDINGS)
    truth = _points_from_rows(tournament)
    ranked = list(tournament.entrants.order_by("final_rank").select_related("version__bot"))
    assert [r["Bot"] for r in shown] == [e.version.bot.name for e in ranked]
    for row, entrant in zip(shown, ranked, strict=True):
        bot = entrant.version.bot
        t = truth[bot.name]
        assert row["link"] == f"/bots/{bot.pk}/"
        assert row["#"] == str(entrant.final_rank)
        assert float(row["Points"]) == t["points"]
        assert (row["W"], row["D"], row["L"]) == (str(int(t["W"])), str(int(t["D"])),
                                                  str(int(t["L"])))
        assert row["Games won"] == str(int(t["games"]))
        assert row["Byes"] == str(int(t["byes"]))  # every format shows its byes
        if "Buchholz" in row:
            assert float(row["Buchholz"]) == t["buchholz"]
    points = [float(r["Points"]) for r in shown]
    assert points == sorted(points, reverse=True) or tournament.format == "knockout"


# --- The tests --------------------------------------------------------------------------------


CROSSTABLE = """() => {
  const rows = [...document.querySelectorAll('#crosstable tbody tr')];
  const order = rows.map(tr => tr.querySelector('td a').textContent);
  const cells = [];
  rows.forEach((tr, i) => tr.querySelectorAll('td.x').forEach((td, j) =>
    td.querySelectorAll('a').forEach(a => cells.push({row: order[i], col: order[j],
      text: a.textContent, href: a.getAttribute('href'), outcome: a.className}))));
  return cells; }"""


def test_staff_run_a_round_robin_of_six_and_the_crosstable_matches_the_database(
    arena: Any, live_server: Any, page: Page
) -> None:
    base = live_server.url
    _user("organiser", staff=True)
    house = User.objects.get(username="house")
    names = ["greedy", "random", "rr-greedy-2", "rr-random-2", "rr-greedy-3", "rr-random-3"]
    for name in names[2:]:
        _bot(house, name, "builtin:random" if "random" in name else "builtin:greedy")
    log_in(page, base, "organiser")
    tournament = new_tournament(page, base, name="Six-bot round robin", format="round_robin",
                                bots=names)
    assert tournament.entrants.count() == 6 and tournament.matches.count() == 15
    expect(page.locator("#t-progress")).to_be_visible()
    run_to_the_end(page, tournament)
    shot(page, "tournament-round-robin")

    cells = page.evaluate(CROSSTABLE)
    assert len(cells) == 2 * 15  # each match twice, once from each side
    by_match = defaultdict(list)
    for cell in cells:
        by_match[cell["href"]].append(cell)
    for m in tournament.matches.all():
        (a, won_a), (b, won_b) = ((_name(s.version_id), s.games) for s in sides.sides(m))
        seen = {(c["row"], c["col"]): c for c in by_match[f"/matches/{m.pk}/"]}
        assert seen[(a, b)]["text"] == f"{won_a}–{won_b}"
        assert seen[(b, a)]["text"] == f"{won_b}–{won_a}"
        outcome = "x-won" if won_a > won_b else "x-lost" if won_a < won_b else "x-drawn"
        assert seen[(a, b)]["outcome"] == outcome
    check_standings(page, tournament)

    first = tournament.matches.order_by("id").first()
    page.click(f'#crosstable a[href="/matches/{first.pk}/"] >> nth=0')
    expect(page.locator("h1")).to_have_text(f"Match #{first.pk}")


BRACKET = """() => [...document.querySelectorAll('#bracket .round')].map(col => ({
  round: Number(col.dataset.round), title: col.querySelector('h3').textContent,
  bouts: [...col.querySelectorAll('.bout')].map(b => ({
    match: b.dataset.match ? Number(b.dataset.match) : null,
    bye: b.dataset.bye ? Number(b.dataset.bye) : null,
    sides: [...b.querySelectorAll('span[data-version]')].map(s => ({
      version: Number(s.dataset.version), winner: s.classList.contains('winner'),
      games: s.querySelector('b') ? Number(s.querySelector('b').textContent) : null})),
    links: [...b.querySelectorAll('a')].map(a => a.getAttribute('href')),
  }))}))"""


def test_staff_run_a_knockout_of_five_and_the_bracket_matches_the_database(
    arena: Any, live_server: Any, page: Page
) -> None:
    base = live_server.url
    _user("organiser", staff=True)
    house = User.objects.get(username="house")
    names = ["greedy", "ko-greedy-2", "ko-greedy-3", "random", "ko-random-2"]
    for name in ("ko-greedy-2", "ko-greedy-3"):
        _bot(house, name)
    _bot(house, "ko-random-2", "builtin:random")
    log_in(page, base, "organiser")
    tournament = new_tournament(page, base, name="Five-bot knockout", format="knockout",
                                bots=names)
    seeds = dict(tournament.entrants.values_list("version__bot__name", "seed"))
    assert seeds == {n: i for i, n in enumerate(names, start=1)}
    run_to_the_end(page, tournament)
    shot(page, "tournament-knockout")

    columns = page.evaluate(BRACKET)
    assert [(c["round"], c["title"], len(c["bouts"])) for c in columns] == [
        (1, "Quarter-finals", 4), (2, "Semi-finals", 2), (3, "Final", 1)]
    byes = set(TournamentBye.objects.filter(tournament=tournament, round=1)
               .values_list("version_id", flat=True))
    assert {b["bye"] for b in columns[0]["bouts"] if b["bye"]} == byes
    assert {_name(v) for v in byes} == {"greedy", "ko-greedy-2", "ko-greedy-3"}  # seeds 1-3
    shown = {b["match"]: (c["round"], b) for c in columns for b in c["bouts"] if b["match"]}
    stored = list(tournament.matches.all())
    assert set(shown) == {m.pk for m in stored}
    out_in = dict(tournament.entrants.values_list("version_id", "eliminated_round"))
    for m in stored:
        number, bout = shown[m.pk]
        assert number == m.round
        stored_sides = [(s.version_id, s.games) for s in sides.sides(m)]
        assert [(s["version"], s["games"]) for s in bout["sides"]] == stored_sides
        (loser,) = [v for v, _ in stored_sides if out_in[v] == m.round]
        assert [s["version"] for s in bout["sides"] if s["winner"]] == [
            v for v, _ in stored_sides if v != loser]
        assert f"/matches/{m.pk}/" in bout["links"]
        assert f"/matches/{m.pk}/#viewer" in bout["links"]
    check_standings(page, tournament)
    header = page.locator("#standings thead").inner_text()
    assert "Buchholz" not in header and "Byes" in header

    final = tournament.matches.get(round=3)
    page.click(f'#bracket .bout[data-match="{final.pk}"] a.replay-link')
    expect(page.locator("#viewer")).to_have_class(re.compile(r"\bloaded\b"))


def test_authors_enter_an_open_swiss_and_it_starts_at_the_deadline(
    arena: Any, live_server: Any, browser: Browser, page: Page
) -> None:
    base = live_server.url
    _user("organiser", staff=True)
    authors = {name: _user(name) for name in ("ada", "bo", "cy", "di")}
    bots = {name: _bot(user, f"{name}-bot", "builtin:random" if name in ("bo", "di")
                       else "builtin:greedy") for name, user in authors.items()}
    log_in(page, base, "organiser")
    page.goto(base + "/tournaments/new/")
    page.fill("#id_name", "Open swiss")
    page.select_option("#id_format", "swiss")
    page.fill("#id_rounds", "3")
    page.fill("#id_move_ms", "500")
    page.check("input[name=entry][value=open]")
    expect(page.locator("#row-entrants")).to_be_hidden()
    deadline = (timezone.now() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    page.fill("#id_entry_deadline", deadline)
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.locator("#entry")).to_contain_text("Open for entry")
    tournament = Tournament.objects.get(name="Open swiss")
    assert tournament.status == Tournament.Status.OPEN

    for i, (name, version) in enumerate(bots.items()):
        context = browser.new_context()
        author_page = context.new_page()
        log_in(author_page, base, name)
        if i % 2:  # from the home page
            author_page.goto(base + "/")
            box = author_page.locator(f'#open-tournaments li[data-tournament="{tournament.pk}"]')
            box.get_by_role("button", name="Enter").click()
            expect(author_page.locator(".messages")).to_contain_text(
                f"{version.bot.name} entered Open swiss")
        else:  # from the bot's page
            author_page.goto(base + f"/bots/{version.bot_id}/")
            item = author_page.locator(f'#bot-tournaments li[data-tournament="{tournament.pk}"]')
            item.get_by_role("button", name="Enter").click()
            expect(item.locator(".badge")).to_have_text("entered")
        context.close()
    assert sorted(tournament.entrants.values_list("version__bot__name", flat=True)) == [
        f"{n}-bot" for n in authors]
    # A fifth, the house's random, entered through the service: an odd field, so byes.
    random = BotVersion.objects.get(bot__name="random")
    services.tournament_enter(tournament=tournament, version=random, user=random.bot.owner)

    page.goto(base + f"/tournaments/{tournament.pk}/")
    expect(page.locator("#standings tbody tr")).to_have_count(5)
    # The deadline passes; the beat's task, sent to the real worker, starts it.
    Tournament.objects.filter(pk=tournament.pk).update(
        entry_deadline=timezone.now() - timedelta(seconds=1))
    expect(page.locator("#t-status")).to_have_text("open")
    tournaments_start_due.apply_async(queue=arena_queue())
    run_to_the_end(page, tournament)  # (the page follows it from open to finished)
    expect(page.locator("#entry")).to_be_hidden()
    expect(page.locator("#cancel-form")).to_be_hidden()
    assert tournament.started is not None and tournament.started > tournament.entry_deadline
    shot(page, "tournament-swiss")
    tournament.refresh_from_db()
    assert tournament.matches.count() == 3 * 2 and tournament.byes.count() == 3
    check_standings(page, tournament)
    pairs = [frozenset(sides.versions(m)) for m in tournament.matches.all()]
    assert len(set(pairs)) == len(pairs)  # no rematches
    rounds = page.locator("#rounds .round")
    expect(rounds).to_have_count(3)

    ada = bots["ada"]
    page.goto(base + f"/bots/{ada.bot_id}/")
    place = tournament.entrants.get(version=ada).final_rank
    expect(page.locator(f'#tournament-history tr[data-tournament="{tournament.pk}"]')
           ).to_contain_text(f"{place} of 5")


def arena_queue() -> str:
    from django.conf import settings

    return str(settings.KAISER_MATCH_QUEUE)
