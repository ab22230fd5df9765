"""The replay viewer on a Sergeant Major replay, in headless Chromium: three hands (South,
West, East), the targets by seat, the exchange's gifts and returns moving cards between the
hands, trump, the dealer's discard and kitty, every card of every trick, the ups and downs of
each hand and the game's and the match's results; stepping forward and back as for Kaiser.
What each step must show is computed here from the replay on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser import test_browser
from tests.matches.sm_matches import sm_replay, stored_sm_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(300)]

browser, page = test_browser.browser, test_browser.page
SEATS = ("South", "West", "East")
MINUS = "\u2212"


def hand_steps(deal: dict[str, Any], kitty_first: bool) -> list[tuple[Any, ...]]:
    """The viewer's steps of one hand: the deal, each gift and return, (the kitty), trump, the
    discard, each card, each finished trick, the end."""
    steps: list[tuple[Any, ...]] = [("deal",)]
    for i, x in enumerate(deal["exchanges"]):
        steps += [("give", i)] if x["given"] else []
        steps += [("return", i)] if x["returned"] else []
    steps += [("kitty",)] if kitty_first and deal["trump"] else []
    steps += [("trump",)] if deal["trump"] else []
    steps += [("discard",)] if deal["discards"] else []
    for t, trick in enumerate(deal["tricks"]):
        steps += [("card", t, n) for n in range(1, len(trick["cards"]) + 1)]
        steps += [("won", t)] if len(trick["cards"]) == 3 else []
    steps += [("end",)] if deal.get("taken") else []
    return steps


def expected_hands(deal: dict[str, Any], steps: list[tuple[Any, ...]], index: int,
                   kitty_first: bool) -> list[list[str]]:
    """Each seat's cards after steps 0..index, moving cards as the rules do."""
    hands = [set(h) for h in deal["hands"]]
    dealer = deal["dealer"]
    played: set[str] = set()
    for step in steps[:index + 1]:
        kind = step[0]
        if kind in ("give", "return"):
            x = deal["exchanges"][step[1]]
            cards = set(x["given"] if kind == "give" else x["returned"])
            source, target = ((x["giver"], x["receiver"]) if kind == "give"
                              else (x["receiver"], x["giver"]))
            hands[source] -= cards
            hands[target] |= cards
        elif kind == "kitty":
            hands[dealer] |= set(deal["kitty"])
        elif kind == "discard":
            hands[dealer] -= set(deal["discards"])
            if not kitty_first:
                hands[dealer] |= set(deal["kitty"])
        elif kind == "card":
            trick = deal["tricks"][step[1]]
            played.add(trick["cards"][step[2] - 1])
    return [sorted(h - played) for h in hands]


SHOWN = """() => ({
  step: Number(document.getElementById('viewer').dataset.step),
  deal: Number(document.getElementById('viewer').dataset.deal),
  hands: [0, 1, 2].map(s => [...document.querySelectorAll(
      `.seat[data-seat="${s}"] .hand .card`)].map(e => e.dataset.card).sort()),
  trick: [...document.querySelectorAll('#v-trick .card')].map(
      e => [Number(e.dataset.seat), e.dataset.card]),
  label: document.getElementById('v-step').textContent,
})"""


def shown(page: Page) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(SHOWN)
    state["trick"] = [tuple(x) for x in state["trick"]]
    return state


def face(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + {"C": "\u2663", "D": "\u2666",
                                                      "H": "\u2665", "S": "\u2660"}[card[1]]


def number(n: int) -> str:
    return f"{MINUS}{-n}" if n < 0 else str(n)


def first_hand_with_exchange(replay: dict[str, Any]) -> tuple[int, int]:
    for g, game in enumerate(replay["games"]):
        for d, deal in enumerate(game["deals"]):
            if deal["exchanges"] and deal.get("taken"):
                return g, d
    raise AssertionError("no hand with an exchange in this replay")


def deal_index(replay: dict[str, Any], game: int, deal: int) -> int:
    return sum(len(g["deals"]) for g in replay["games"][:game]) + deal


def step_through_hand(page: Page, replay: dict[str, Any], g: int, d: int) -> None:
    """Every step of hand d of game g, forward (button and arrow key), checking the hands,
    the trick, the exchange, trump, discard and kitty; then the hand's ups and downs."""
    deal = replay["games"][g]["deals"][d]
    kitty_first = replay["rules"]["kitty_first"]
    steps = hand_steps(deal, kitty_first)
    page.select_option("#v-deal", str(deal_index(replay, g, d)))
    page.locator("#viewer").click(position={"x": 5, "y": 5})  # focus for the arrow keys
    for seat in range(3):
        expect(page.locator(f'.seat[data-seat="{seat}"] .badge.target')).to_have_attribute(
            "data-target", str(deal["targets"][seat]))
    expect(page.locator(".seat.seat-3")).to_be_hidden()
    dealer = page.locator(f'.seat[data-seat="{deal["dealer"]}"] .badge.dealer')
    expect(dealer).to_have_count(1)
    for index, step in enumerate(steps):
        state = shown(page)
        assert (state["deal"], state["step"]) == (deal_index(replay, g, d), index)
        assert state["hands"] == expected_hands(deal, steps, index, kitty_first), (index, step)
        if step[0] == "card":
            trick = deal["tricks"][step[1]]
            assert state["trick"] == [((trick["leader"] + i) % 3, c)
                                      for i, c in enumerate(trick["cards"][:step[2]])]
        if step[0] == "give":
            x = deal["exchanges"][step[1]]
            item = page.locator(".sm-exchanges li").nth(step[1])
            expect(item).to_contain_text(f"{SEATS[x['giver']]} gives {x['count']} to "
                                         f"{SEATS[x['receiver']]}: " +
                                         " ".join(face(c) for c in x["given"]))
            expect(item).to_contain_text("the return is to come")
        if step[0] == "return":
            x = deal["exchanges"][step[1]]
            expect(page.locator(".sm-exchanges li").nth(step[1])).to_contain_text(
                "gets back " + " ".join(face(c) for c in x["returned"]))
        if step[0] == "trump":
            expect(page.locator("#v-contract .trump")).to_contain_text(
                {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[deal["trump"]])
        if step[0] == "discard":
            expect(page.locator(".sm-discard")).to_have_text(
                "Discard: " + " ".join(face(c) for c in deal["discards"]))
        if index == len(steps) // 3:
            test_browser.shot(page, "sm-viewer")
        if index < len(steps) - 1:
            page.keyboard.press("ArrowRight") if index % 2 else page.click("#v-next")
    assert "hand over" in shown(page)["label"]
    expect(page.locator(".sm-kitty")).to_contain_text(" ".join(face(c) for c in deal["kitty"]))
    for seat in range(3):
        delta = deal["delta"][seat]
        words = f"up {delta}" if delta > 0 else f"down {-delta}" if delta < 0 else "on target"
        expect(page.locator(f'.seat[data-seat="{seat}"] .sm-count')).to_have_text(
            f"took {deal['taken'][seat]}: {words}")
    row = page.locator(".sm-scores tr.current")
    for seat in range(3):
        expect(row.locator("td").nth(seat + 1)).to_have_text(
            f"{number(deal['score'][seat])} ({'+' if deal['delta'][seat] > 0 else ''}"
            f"{number(deal['delta'][seat])})")
    # Back: the arrow key, then the first step with Home, where the hands are as dealt.
    page.keyboard.press("ArrowLeft")
    assert shown(page)["step"] == len(steps) - 2
    page.keyboard.press("Home")
    assert shown(page)["hands"] == [sorted(h) for h in deal["hands"]]


def check_game_end(page: Page, replay: dict[str, Any]) -> None:
    """The last hand of the last game: the game's result and the match's."""
    last_game = replay["games"][-1]
    page.select_option("#v-deal", str(deal_index(replay, len(replay["games"]) - 1,
                                                 len(last_game["deals"]) - 1)))
    page.locator("#viewer").click(position={"x": 5, "y": 5})
    page.keyboard.press("End")
    result = last_game["result"]
    seats = last_game["seats"]

    def who(seat: int) -> str:  # the bot at the seat, by name, then the seat (issue 43)
        player = replay["players"][seats[seat]]
        return f"{player['name']} v{player['version']} ({SEATS[seat]})"

    if result["winner"] is not None:
        expect(page.locator(".game-result")).to_contain_text(
            f"{who(result['winner'])} wins the game")
    expect(page.locator(".game-result")).to_contain_text(
        "Score: " + ", ".join(f"{who(s)} {number(v)}" for s, v in enumerate(result["score"])))
    games = replay["result"]["games"]
    expect(page.locator(".match-result")).to_contain_text(
        f"Match: A {games['A']} won")
    expect(page.locator(".match-result")).to_contain_text(f"C {games['C']} won")


def test_a_sergeant_major_replay_file_steps_through_in_the_viewer(
    live_server: Any, page: Page, tmp_path: Path
) -> None:
    replay = sm_replay("7")
    path = tmp_path / "sm.json"
    path.write_text(json.dumps(replay))
    page.goto(live_server.url + "/replay/")
    page.set_input_files("#v-file", str(path))
    expect(page.locator("#viewer")).to_have_class(test_browser.LOADED)
    expect(page.locator("#viewer")).to_have_class(lambda_class("game-sm"))
    expect(page.locator("#v-message")).to_contain_text("Sergeant Major, rules 952")
    options = page.locator("#v-deal option")
    expect(options).to_have_count(sum(len(g["deals"]) for g in replay["games"]))
    expect(options.first).to_have_text("game 1 \u00b7 hand 1")
    g, d = first_hand_with_exchange(replay)
    step_through_hand(page, replay, g, d)
    check_game_end(page, replay)
    test_browser.shot(page, "sm-viewer-end")


def test_the_kitty_first_preset_shows_the_kitty_in_the_dealers_hand_before_trump(
    live_server: Any, page: Page, tmp_path: Path
) -> None:
    replay = sm_replay("3", games=3, preset="952-kitty-first")
    path = tmp_path / "sm-kitty-first.json"
    path.write_text(json.dumps(replay))
    page.goto(live_server.url + "/replay/")
    page.set_input_files("#v-file", str(path))
    expect(page.locator("#viewer")).to_have_class(test_browser.LOADED)
    step_through_hand(page, replay, 0, 0)


def test_a_kaiser_replay_after_a_sergeant_major_one_shows_four_seats_again(
    live_server: Any, page: Page, tmp_path: Path
) -> None:
    from engine.builtin import resolve_player as kaiser_player
    from engine.kaiser.match import run_match
    from engine.runner import replay_json

    sm = tmp_path / "sm.json"
    sm.write_text(json.dumps(sm_replay("9", games=3)))
    kaiser = tmp_path / "kaiser.json"
    kaiser.write_text(replay_json(run_match(kaiser_player("builtin:greedy"),
                                            kaiser_player("builtin:random"), games=2,
                                            seed="5")))
    page.goto(live_server.url + "/replay/")
    page.set_input_files("#v-file", str(sm))
    expect(page.locator("#viewer")).to_have_class(lambda_class("game-sm"))
    page.set_input_files("#v-file", str(kaiser))
    expect(page.locator("#v-message")).to_contain_text("greedy v1 v. random v1 \u00b7")
    expect(page.locator("#viewer")).not_to_have_class(lambda_class("game-sm"))
    expect(page.locator(".seat.seat-3")).to_be_visible()
    expect(page.locator(".seat.seat-3 .hand .card")).to_have_count(8)
    expect(page.locator("#v-deal option").first).to_have_text("game 1 \u00b7 deal 1")


def lambda_class(name: str) -> Any:
    import re

    return re.compile(rf"\b{re.escape(name)}\b")


def test_a_sergeant_major_match_page_shows_three_players_and_steps_through_its_replay(
    live_server: Any, page: Page, house: Any
) -> None:
    replay = sm_replay("7")
    match = stored_sm_match(replay, house)
    games = replay["result"]["games"]
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    head = page.locator(".match-head.three")
    for name in ("sm-alpha", "sm-beta", "sm-gamma"):
        expect(head).to_contain_text(name)
    expect(head.locator(".score")).to_contain_text(
        f"{games['A']} \u2013 {games['B']} \u2013 {games['C']}")
    expect(page.locator("#match-rules")).to_have_attribute(
        "href", "/docs/rules-sergeant-major/#rule-sets-presets")
    expect(page.locator("#boards-link")).to_have_count(0)  # Kaiser's duplicate boards only
    expect(page.locator("#viewer")).to_have_class(test_browser.LOADED)
    expect(page.locator("#viewer")).to_have_class(lambda_class("game-sm"))
    g, d = first_hand_with_exchange(replay)
    step_through_hand(page, replay, g, d)
    check_game_end(page, replay)
    test_browser.shot(page, "sm-match-page")
    # The match's row, in the match list and on each player's page, names all three.
    for url in ("/matches/", f"/bots/{match.side_list[2].version.bot_id}/"):
        page.goto(live_server.url + url)
        row = page.locator("tr.match-row", has=page.locator(f'a[href="/matches/{match.pk}/"]'))
        expect(row).to_contain_text("sm-alpha")
        expect(row.locator("a.side-c")).to_have_text("sm-gamma")
        expect(row).to_contain_text(f"{games['A']}\u2013{games['B']}\u2013{games['C']}")
        winners = [side for side in "ABC" if games[side] == max(games.values())]
        if len(winners) == 1:
            name = {"A": "sm-alpha", "B": "sm-beta", "C": "sm-gamma"}[winners[0]]
            expect(row.locator("a.winner")).to_have_text(name)
