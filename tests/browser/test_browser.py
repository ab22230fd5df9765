"""The site in headless Chromium (Debian's, through Playwright): an author signs up, uploads an
example bot, sees its check pass, finds it on the leaderboard after its first matches, steps
through a whole deal of one of them in the replay viewer, and watches a tournament's progress
bar move. Screenshots of the main pages go to test-artifacts/ (not committed).

The upload check runs as the Celery task, eagerly inside the upload request (the real sandbox
plays it); the ladder matches are created and played through the tournaments services, with
dispatch to the broker turned off so nothing else picks them up."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from bots.models import BotVersion
from ladder import services as ladder_services
from ladder.models import Ladder
from matches import services as match_services
from matches.models import Match
from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
EXAMPLE = ROOT / "bots" / "examples" / "random.zip"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"]
BOT = "my-first-bot"
PASSWORD = "a-long-browser-password-42"
TOKEN = re.compile(r"^[0-9a-f]{40}$")
LOADED = re.compile(r"\bloaded\b")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                              args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == [], f"JavaScript errors in the pages: {errors}"


@pytest.fixture
def site(settings: Any, celery_eager: None) -> None:
    settings.KAISER_DISPATCH_DEPTH = 0  # matches wait in the database; the test plays them
    ladder_services.house_bots_ensure()
    ARTIFACTS.mkdir(exist_ok=True)


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


# --- What the viewer must show, computed here from the replay on its own -----------------------


def deal_steps(deal: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The viewer's steps of one deal: the deal, each bid, the contract, the discards, each
    card, each finished trick, the deal's end."""
    steps: list[tuple[Any, ...]] = [("deal",)]
    steps += [("misdeal",)] if deal["misdeal"] else []
    steps += [("bid", n) for n in range(1, len(deal["bids"]) + 1)]
    steps += [("contract",)] if deal["contract"] else []
    steps += [("discard",)] if deal.get("discards") else []
    for t, trick in enumerate(deal["tricks"]):
        steps += [("card", t, n) for n in range(1, len(trick["cards"]) + 1)]
        steps += [("won", t)] if len(trick["cards"]) == 4 else []
    steps += [("end",)] if deal.get("points") else []
    return steps


def expected_table(deal: dict[str, Any], step: tuple[Any, ...]) -> dict[str, Any]:
    """Each seat's hand (as sets) and the trick on the table (seat, card) at `step`."""
    played: list[str] = []
    trick: list[tuple[str, str]] = []
    if step[0] in ("card", "won", "end"):
        upto = len(deal["tricks"]) if step[0] == "end" else step[1]
        for t in range(upto):
            played += deal["tricks"][t]["cards"]
        if step[0] != "end":
            current = deal["tricks"][step[1]]
            shown = current["cards"] if step[0] == "won" else current["cards"][:step[2]]
            played += shown
            trick = [(str((current["leader"] + i) % 4), c) for i, c in enumerate(shown)]
    hands = [sorted(set(hand) - set(played)) for hand in deal["hands"]]
    return {"hands": hands, "trick": trick}


SHOWN = """() => ({
  step: Number(document.getElementById('viewer').dataset.step),
  deal: Number(document.getElementById('viewer').dataset.deal),
  hands: [0, 1, 2, 3].map(s => [...document.querySelectorAll(
      `.seat[data-seat="${s}"] .hand .card`)].map(e => e.dataset.card).sort()),
  trick: [...document.querySelectorAll('#v-trick .card')].map(
      e => [e.dataset.seat, e.dataset.card]),
  label: document.getElementById('v-step').textContent,
})"""


def shown(page: Page) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(SHOWN)
    state["trick"] = [tuple(x) for x in state["trick"]]
    return state


# --- The journey ----------------------------------------------------------------------------


def sign_up_and_upload(page: Page, base: str) -> None:
    page.goto(base + "/")
    page.get_by_role("link", name="Sign up").first.click()
    page.fill("#id_username", "ada")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator("h1")).to_have_text("ada")
    expect(page.locator("#api-token")).to_have_text(TOKEN)
    page.get_by_role("link", name="New bot").click()
    page.fill("#id_name", BOT)
    page.fill("#id_description", "Plays at random, for now.")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_contain_text(f"Upload a version of {BOT}")
    page.set_input_files("input[type=file]", str(EXAMPLE))
    expect(page.locator("#drop-name")).to_have_text("random.zip")
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#upload-progress")).to_have_attribute("data-status", "active",
                                                               timeout=120_000)
    expect(page.locator("#u-detail")).to_contain_text("Passed")
    shot(page, "upload-verdict")


def first_matches(version: BotVersion) -> list[Match]:
    ladder = Ladder.objects.get(slug="main")
    random, greedy = ladder_services.house_bots_ensure()
    played = []
    for opponent in (greedy, random):
        match = match_services.match_create(versions=[version, opponent],
                                      kind=Match.Kind.LADDER, conditions=ladder, ladder=ladder,
                                      rated=True)
        assert match_services.match_play(match_id=match.pk, worker="browser-test") == "finished"
        played.append(Match.objects.get(pk=match.pk))
    return played


def step_through_first_deal(page: Page, match: Match) -> None:
    replay = match.replay()
    assert replay is not None
    deal = replay["games"][0]["deals"][0]
    steps = deal_steps(deal)
    page.locator("#viewer").click(position={"x": 5, "y": 5})  # focus for the arrow keys
    for index, step in enumerate(steps):
        state = shown(page)
        assert (state["deal"], state["step"]) == (0, index)
        want = expected_table(deal, step)
        assert state["hands"] == want["hands"], (index, step)
        assert state["trick"] == want["trick"], (index, step)
        if index == len(steps) // 2:
            shot(page, "match-viewer")
        if index < len(steps) - 1:
            page.keyboard.press("ArrowRight") if index % 2 else page.click("#v-next")
    assert "deal over" in shown(page)["label"]
    score = deal["score"]
    row = page.locator(".score-table tr.current")
    for team in (0, 1):  # a negative score with a real minus sign, as the viewer writes it
        expect(row).to_contain_text(f"{score[team]} (".replace("-", "\u2212"))
    # Back one step with the arrow key, then anywhere with the slider.
    page.keyboard.press("ArrowLeft")
    assert shown(page)["step"] == len(steps) - 2
    page.locator("#v-slider").fill("5")
    state = shown(page)
    assert state["step"] == 5
    assert state["hands"] == expected_table(deal, steps[5])["hands"]
    # The next deal, from the deal menu.
    if len(replay["games"][0]["deals"]) > 1:
        page.select_option("#v-deal", "1")
        state = shown(page)
        assert (state["deal"], state["step"]) == (1, 0)
        assert state["hands"] == [sorted(h) for h in replay["games"][0]["deals"][1]["hands"]]


def test_an_author_uploads_a_bot_and_watches_it_play(
    site: None, live_server: Any, page: Page
) -> None:
    base = live_server.url
    sign_up_and_upload(page, base)
    version = BotVersion.objects.get(bot__name=BOT)
    assert version.status == BotVersion.Status.ACTIVE
    matches = first_matches(version)

    page.goto(base + "/")
    row = page.locator(f'tr[data-bot="{BOT}"]')
    expect(row).to_be_visible()
    expect(row).to_contain_text("ada")
    expect(row.locator("td").nth(5)).to_have_text("2")  # rated matches played
    shot(page, "home")

    row.get_by_role("link", name=BOT).click()
    expect(page.locator("h1")).to_contain_text(BOT)
    expect(page.locator(".status-active").first).to_be_visible()
    shot(page, "bot")
    page.click(f'a[href="/matches/{matches[0].pk}/"]')
    expect(page.locator("h1")).to_have_text(f"Match #{matches[0].pk}")
    expect(page.locator("#viewer")).to_have_class(LOADED)
    step_through_first_deal(page, matches[0])

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base + f"/matches/{matches[1].pk}/")
    expect(page.locator("#viewer")).to_have_class(LOADED)
    for _ in range(14):
        page.keyboard.press("ArrowRight")
    shot(page, "match-phone")
    page.goto(base + "/")
    shot(page, "home-phone")


def test_a_tournament_page_follows_its_progress_live(
    site: None, live_server: Any, page: Page
) -> None:
    random, greedy = ladder_services.house_bots_ensure()
    from django.contrib.auth.models import User

    from bots.models import Bot
    from bots.services import bot_builtin_add

    third = bot_builtin_add(
        bot=Bot.objects.create(owner=User.objects.create_user("tess"), name="tess-bot"),
        spec="builtin:greedy")
    tournament = services.tournament_create(name="Browser cup", format="round_robin",
                                            versions=[greedy, random, third])
    queued = list(tournament.matches.order_by("id"))
    match_services.match_play(match_id=queued[0].pk, worker="browser-test")

    page.goto(live_server.url + "/tournaments/")
    page.get_by_role("link", name="Browser cup").click()
    expect(page.locator("#t-count")).to_have_text("1 of 3 matches played")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    match_services.match_play(match_id=queued[1].pk, worker="browser-test")
    expect(page.locator("#t-count")).to_have_text("2 of 3 matches played", timeout=15_000)
    assert page.locator("#t-progress").evaluate("e => e.value") == 2
    shot(page, "tournament")
    match_services.match_play(match_id=queued[2].pk, worker="browser-test")
    expect(page.locator("#t-status")).to_have_text("finished", timeout=15_000)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED


def test_a_replay_file_from_the_command_line_opens_in_the_viewer(
    site: None, live_server: Any, page: Page, tmp_path: Path
) -> None:
    import json

    from engine.builtin import resolve_player
    from engine.kaiser.match import run_match
    from engine.runner import replay_json

    replay = run_match(resolve_player("builtin:greedy"), resolve_player("builtin:random"),
                       games=2, seed="5")
    path = tmp_path / "match.json"
    path.write_text(replay_json(replay))
    page.goto(live_server.url + "/replay/")
    page.set_input_files("#v-file", str(path))
    expect(page.locator("#viewer")).to_have_class(LOADED)
    first = replay["games"][0]["deals"][0]
    assert shown(page)["hands"] == [sorted(h) for h in first["hands"]]
    options = page.locator("#v-deal option")
    expect(options).to_have_count(sum(len(g["deals"]) for g in replay["games"]))
    page.locator("#viewer").click(position={"x": 5, "y": 5})
    page.keyboard.press("End")
    assert "deal over" in shown(page)["label"]
    page.set_input_files("#v-file", files=[{"name": "bad.json", "mimeType": "application/json",
                                            "buffer": json.dumps({"hello": 1}).encode()}])
    expect(page.locator("#v-message")).to_contain_text("not a Kaiser Arena replay")
    shot(page, "replay-file")


def test_a_replay_dropped_on_the_viewer_shows_the_fault_where_it_happened(
    site: None, live_server: Any, page: Page
) -> None:
    from engine.builtin import resolve_player
    from engine.kaiser.match import run_match
    from engine.runner import replay_json
    from tests.pages.conftest import _TimesOutFactory

    replay = run_match(resolve_player("builtin:greedy"), _TimesOutFactory(), games=2, seed="11")
    fault = replay["games"][-1]["result"]["forfeit"]
    assert fault is not None
    page.goto(live_server.url + "/replay/")
    dropped = page.evaluate_handle(
        """text => { const data = new DataTransfer();
                     data.items.add(new File([text], 'faulty.json', {type: 'application/json'}));
                     return data; }""", replay_json(replay))
    page.dispatch_event("#viewer", "drop", {"dataTransfer": dropped})
    expect(page.locator("#viewer")).to_have_class(LOADED)
    expect(page.locator("#v-message")).to_contain_text("fault: sleepy timeout")
    last = sum(len(g["deals"]) for g in replay["games"]) - 1
    page.select_option("#v-deal", str(last))
    expect(page.locator(".seat.at-fault")).to_have_count(0)  # not before it happened
    page.locator("#viewer").click(position={"x": 5, "y": 5})
    page.keyboard.press("End")
    assert "fault" in shown(page)["label"]
    faulty = page.locator(".seat.at-fault")
    expect(faulty).to_have_count(1)
    expect(faulty).to_have_attribute("data-seat", str(fault["seat"]))
    expect(faulty).to_contain_text("fault: timeout")
    expect(page.locator("#v-scores .fault-note")).to_contain_text(fault["detail"])
    shot(page, "replay-fault")
