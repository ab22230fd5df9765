"""A person plays a whole one-deal game in headless Chromium, by clicks only, against
builtin:random seats and then with an uploaded bot (sandboxed) as partner, on the real play
worker. The stored replay validates and holds exactly the moves clicked; the replay page and
the person's page list the game."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from engine.validate import validate_replay
from play.models import Table
from tests.browser import test_browser

# Playwright's sync API runs an event loop in this thread; the test's own database calls are
# plain synchronous code (as in tests/browser/conftest.py).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.sandbox,
              pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

# Wait until the person may act (a move button or a raised card) or the game is over.
READY = """() => {
  const root = document.getElementById('play');
  if (!root || !window.kaiserPlay) return false;
  if (['finished', 'void'].includes(root.dataset.status)) return true;
  const g = window.kaiserPlay.game;
  return !!(g.view && g.view.your_turn && !g.pending && (
    document.querySelector('#p-actions button.move:not([disabled])') ||
    document.querySelector('.seat-0 .hand .card.legal')));
}"""


# The fixtures of the other browser tests: Chromium, a page that fails on JavaScript errors.
browser, page = test_browser.browser, test_browser.page


def _log_in(page: Page, base: str, user: Any, password: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", password)
    page.click("form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def _click_a_move(page: Page) -> Any:
    """Click the first legal thing on offer; return the move it makes (protocol form)."""
    button = page.locator("#p-actions button.move:not([disabled])").first
    if button.count():
        for key, value in (("bid", None), ("suit", None), ("misdeal", "true")):
            data = button.get_attribute(f"data-{key}")
            if data is not None:
                button.click()
                return data == value if key == "misdeal" else data
    card = page.locator(".seat-0 .hand .card.legal").first
    code = card.get_attribute("data-card")
    card.click()
    return code


def _play_by_clicks(page: Page) -> list[Any]:
    clicked: list[Any] = []
    shot = False
    ARTIFACTS.mkdir(exist_ok=True)
    while True:
        page.wait_for_function(READY, timeout=60_000)
        if page.locator("#play").get_attribute("data-status") in ("finished", "void"):
            return clicked
        seq = page.locator("#play").get_attribute("data-seq")
        if not shot and page.locator(".seat-0 .hand .card.legal").count():
            page.screenshot(path=str(ARTIFACTS / "play-your-card.png"), full_page=True)
            shot = True
        clicked.append(_click_a_move(page))
        page.wait_for_function(
            "seq => document.getElementById('play').dataset.seq !== seq || "
            "['finished', 'void'].includes(document.getElementById('play').dataset.status)",
            arg=seq, timeout=60_000)


def _person_moves(replay: dict[str, Any]) -> list[Any]:
    moves: list[Any] = []
    for deal in replay["games"][0]["deals"]:
        moves += [b["bid"] for b in deal["bids"] if b["seat"] == 0]
        contract = deal["contract"]
        if contract and contract["seat"] == 0 and contract["trump"]:
            moves.append(contract["trump"])
        for trick in deal["tricks"]:
            moves += [c for i, c in enumerate(trick["cards"]) if (trick["leader"] + i) % 4 == 0]
    return moves


@pytest.mark.parametrize("partner", ["builtin:random", "uploaded"])
def test_a_person_plays_a_whole_deal_by_clicks_and_the_replay_holds_those_moves(
    live_server: Any, page: Page, real_workers: Any, owner: Any, password: str,
    make_program: Any, partner: str
) -> None:
    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=2)
    base = live_server.url
    _log_in(page, base, owner, password)
    if partner == "uploaded":
        example = (ROOT / "bots" / "examples" / "random.zip").read_bytes()
        version = make_program("my-partner", example, owner=owner, kind="zip")
    page.goto(base + "/play/")
    if partner == "uploaded":
        page.select_option("#seat2", str(version.pk))
    page.click("#start")
    page.wait_for_url(lambda url: "/play/" in url and url.rstrip("/").split("/")[-1].isdigit())
    expect(page.locator("#p-message")).not_to_contain_text("Waiting for a server", timeout=30_000)
    clicked = _play_by_clicks(page)
    expect(page.locator("#play")).to_have_attribute("data-status", "finished")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"play-over-{partner.replace(':', '-')}.png"),
                    full_page=True)
    game = Table.objects.get(owner=owner)
    assert game.status == Table.Status.FINISHED and game.forfeit_reason == ""
    assert validate_replay(game.replay) == []
    assert _person_moves(game.replay) == clicked and clicked
    seats = game.replay["seat_players"]
    assert seats[0]["human"] and seats[2]["name"] == (
        "my-partner" if partner == "uploaded" else "random")
    page.click("#p-replay")
    expect(page.locator("#viewer")).to_have_class("viewer loaded", timeout=10_000)
    page.goto(base + "/accounts/")
    expect(page.locator(f'#your-games tr[data-game="{game.pk}"]')).to_contain_text("finished")


def test_the_contract_trump_and_kitty_discard_by_clicks_and_cards_by_keys(
    live_server: Any, page: Page, real_workers: Any, owner: Any, password: str,
    make_program: Any
) -> None:
    """Saskatchewan rules (a kitty of two) with three sandboxed bots that pass whenever they
    may: the person's first bid wins the contract, so the person names trump and discards."""
    from tests.hardening.hardening_support import slow_bot_zip

    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1)
    passer = make_program("passer", slow_bot_zip("play-passer-marker", pause=0), kind="zip")
    _log_in(page, live_server.url, owner, password)
    page.goto(live_server.url + "/play/")
    page.select_option("#rules", "saskatchewan")
    for seat in ("#seat1", "#seat2", "#seat3"):
        page.select_option(seat, str(passer.pk))
    page.click("#start")
    page.wait_for_function(READY, timeout=60_000)
    bid = page.locator("#p-actions button.move:not([data-bid=pass])").first
    made = [bid.get_attribute("data-bid")]
    bid.click()
    made += _trump_and_discard(page)
    while True:  # the cards, by the keyboard: → to the last legal card, Enter to play it
        page.wait_for_function(READY, timeout=60_000)
        if page.locator("#play").get_attribute("data-status") == "finished":
            break
        seq = page.locator("#play").get_attribute("data-seq")
        legal = page.locator(".seat-0 .hand .card.legal")
        for _ in range(legal.count() - 1):
            page.keyboard.press("ArrowRight")
        made.append(page.locator(".seat-0 .hand .card.legal.focus").get_attribute("data-card"))
        page.keyboard.press("Enter")
        page.wait_for_function(
            "seq => document.getElementById('play').dataset.seq !== seq || "
            "document.getElementById('play').dataset.status === 'finished'", arg=seq)
    game = Table.objects.get(owner=owner)
    assert validate_replay(game.replay) == []
    deal = game.replay["games"][0]["deals"][0]
    assert deal["contract"]["seat"] == 0 and deal["contract"]["bid"] == made[0]
    assert deal["contract"]["trump"] == made[1] and sorted(deal["discards"]) == sorted(made[2])
    cards = [c for t in deal["tricks"] for i, c in enumerate(t["cards"])
             if (t["leader"] + i) % 4 == 0]
    assert cards == made[3:]


def _trump_and_discard(page: Page) -> list[Any]:
    page.wait_for_function(READY, timeout=60_000)
    suit = page.locator("#p-actions button[data-suit]").first
    trump = suit.get_attribute("data-suit")
    suit.click()
    page.wait_for_selector("#p-discard", timeout=60_000)
    page.wait_for_function(READY, timeout=60_000)
    chosen = []
    for _ in range(2):
        card = page.locator(".seat-0 .hand .card.legal:not(.chosen)").first
        chosen.append(card.get_attribute("data-card"))
        card.click()
    expect(page.locator("#p-discard")).to_be_enabled()
    page.screenshot(path=str(ARTIFACTS / "play-discard.png"), full_page=True)
    page.click("#p-discard")
    return [trump, chosen]
