"""A person plays Sergeant Major in headless Chromium, by clicks only, against two
builtin:random seats on the real play worker: a six-hand game (952-six-hands), so the person
deals (names trump, chooses the discard), exchanges cards after an up or down hand (chooses
the gifts, sends back the forced return) and plays every card. The stored replay validates
and holds exactly the moves clicked; the result appears on the page in words computed here;
the replay page shows the game in the viewer."""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from engine.games import get_game
from engine.sergeant_major import SERGEANT_MAJOR
from play.models import Table
from tests.browser import test_browser
from tests.play.conftest import real_workers  # noqa: F401 (a fixture: the real play worker)
from tests.play.test_play_browser import READY, _log_in
from tests.play.test_play_sm import _person_moves

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytestmark = [pytest.mark.browser, pytest.mark.worker,
              pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

browser, page = test_browser.browser, test_browser.page
SEATS = ("South", "West", "East")
MINUS = "\u2212"


def _click_a_move(page: Page) -> tuple[str, Any]:
    """Make the person's move by clicks: the first suit, the forced return, the first legal
    cards (as many as the decision takes) then the button, or the first legal card."""
    view = page.evaluate("window.kaiserPlay.game.view")
    decision = view["decision"]
    if decision == "trump":
        button = page.locator("#p-actions button[data-suit]").first
        suit = button.get_attribute("data-suit")
        button.click()
        return decision, suit
    if decision == "return":
        expect(page.locator("#p-actions .prompt")).to_contain_text("the rules send back")
        page.click("#p-return")
        return decision, sorted(view["legal"])
    if decision in ("give", "discard"):
        chosen = []
        for _ in range(view["count"]):
            card = page.locator(".seat-0 .hand .card.legal:not(.chosen)").first
            chosen.append(card.get_attribute("data-card"))
            card.click()
        go = page.locator(f"#p-{decision}")
        expect(go).to_be_enabled()
        go.click()
        return decision, sorted(chosen)
    card = page.locator(".seat-0 .hand .card.legal").first
    code = card.get_attribute("data-card")
    card.click()
    return decision, code


def _expected_result(replay: dict[str, Any], username: str) -> str:
    result = replay["games"][0]["result"]
    names = ["you", *(f"{p['name']} ({SEATS[s]})" for s, p in
                      enumerate(replay["seat_players"]) if s)]

    def number(n: int) -> str:
        return f"{MINUS}{-n}" if n < 0 else str(n)

    winner, win_tricks = result["winner"], replay["rules"]["win_tricks"]
    last = replay["games"][0]["deals"][-1]
    leaders = [s for s, n in enumerate(result["score"]) if n == max(result["score"])]
    if winner is None and len(leaders) == 1:  # one seat ahead: said (issue 43)
        lead = "you lead" if leaders[0] == 0 else f"{names[leaders[0]]} leads"
        text = f"The game ended with no winner: {lead} with {number(max(result['score']))}"
    elif winner is None:
        text = "No outright winner"
    else:
        # A hand of win_tricks wins outright, where the rules have it (952-six-hands has
        # none: twelve tricks in its last hand still win on the totals).
        in_hand = win_tricks is not None and last["taken"][winner] >= win_tricks
        text = ("You win" if winner == 0 else f"{names[winner]} wins") + " the game" + (
            f": {win_tricks} tricks or more in a hand" if in_hand else " on the totals")
    return text + ". Score: " + ", ".join(f"{names[s]} {number(n)}"
                                          for s, n in enumerate(result["score"])) + "."


def test_a_person_plays_a_sergeant_major_game_by_clicks_to_its_end(
    live_server: Any, page: Page, real_workers: Any, owner: Any, password: str  # noqa: F811
) -> None:
    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1)
    base = live_server.url
    _log_in(page, base, owner, password)
    page.goto(base + "/play/")
    page.get_by_role("link", name="Sergeant Major (9-5-2)").click()
    expect(page.locator("h1")).to_have_text("Play Sergeant Major (9-5-2) against the bots")
    expect(page.locator("#seat3")).to_have_count(0)
    page.select_option("#rules", "952-six-hands")
    page.select_option("#length", "game")
    page.click("#start")
    page.wait_for_url(lambda url: url.rstrip("/").split("/")[-1].isdigit())
    expect(page.locator("#play")).to_have_attribute("data-game", SERGEANT_MAJOR)
    expect(page.locator("#p-message")).not_to_contain_text("Waiting for a server",
                                                           timeout=30_000)
    expect(page.locator(".seat.seat-3")).to_be_hidden()
    clicked: list[Any] = []
    decisions: set[str] = set()
    while True:
        page.wait_for_function(READY, timeout=60_000)
        if page.locator("#play").get_attribute("data-status") in ("finished", "void"):
            break
        seq = page.locator("#play").get_attribute("data-seq")
        view = page.evaluate("window.kaiserPlay.game.view")
        for seat in range(3):  # the targets by seat, as the person's view has them
            expect(page.locator(f'.seat[data-seat="{seat}"] .badge.target')).to_have_attribute(
                "data-target", str(view["targets"][seat]))
        decision, move = _click_a_move(page)
        if decision not in decisions:
            test_browser.shot(page, f"sm-play-{decision}")
        decisions.add(decision)
        clicked.append(move)
        page.wait_for_function(
            "seq => document.getElementById('play').dataset.seq !== seq || "
            "['finished', 'void'].includes(document.getElementById('play').dataset.status)",
            arg=seq, timeout=60_000)
    expect(page.locator("#play")).to_have_attribute("data-status", "finished")
    game = Table.objects.get(owner=owner)
    replay = game.replay
    assert get_game(SERGEANT_MAJOR).validate_replay(replay) == []
    assert len(replay["games"][0]["deals"]) == 6
    assert _person_moves(replay) == clicked
    assert {"trump", "discard", "play"} <= decisions and decisions & {"give", "return"}
    expect(page.locator("#p-message")).to_have_text(_expected_result(replay, owner.username))
    rows = page.locator(".sm-scores tr")
    expect(rows).to_have_count(7)  # the head and six hands
    test_browser.shot(page, "sm-play-over")
    page.click("#p-replay")
    expect(page.locator("#viewer")).to_have_class(test_browser.LOADED)
    expect(page.locator("#v-deal option")).to_have_count(6)
    expect(page.locator(".seat.seat-3")).to_be_hidden()
