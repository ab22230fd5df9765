"""A pushed game in headless Chromium: the site under uvicorn (the ASGI app, as run.sh and
compose serve it), the real play worker, Redis. The person plays a whole deal by clicks; the
bots' moves reach the page as server-sent events, and the page never polls state/. A browser
without EventSource plays the same game by polling, once a second while nobody moves."""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from engine.validate import validate_replay
from play.models import Table
from tests.browser import test_browser
from tests.play.test_play_browser import _log_in, _person_moves, _play_by_clicks

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytestmark = [pytest.mark.browser, pytest.mark.worker,
              pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

browser, page = test_browser.browser, test_browser.page
PLAY_INFO = """() => ({transport: kaiserPlay.transport, events: kaiserPlay.events,
                      polls: kaiserPlay.polls, waits: kaiserPlay.waits})"""


@pytest.fixture(autouse=True)
def _password_the_server_knows(settings: Any, owner: Any, password: str) -> None:
    """The suite hashes passwords with MD5 for speed, which the server (a subprocess with the
    site's settings) does not accept: the owner's password in the site's own hash."""
    from django.contrib.auth.hashers import make_password

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    owner.password = make_password(password)
    owner.save(update_fields=["password"])


def _start_a_deal(page: Page, base: str, owner: Any, password: str) -> None:
    _log_in(page, base, owner, password)
    page.goto(base + "/play/")
    page.click("#start")  # official rules, one deal, builtin:random at the other seats
    page.wait_for_url(lambda url: "/play/" in url and url.rstrip("/").split("/")[-1].isdigit())


def _play_a_deal(page: Page, base: str, owner: Any, password: str) -> tuple[Table, list[Any]]:
    _start_a_deal(page, base, owner, password)
    clicked = _play_by_clicks(page)
    expect(page.locator("#play")).to_have_attribute("data-status", "finished")
    expect(page.locator("#p-replay")).to_be_visible()
    game = Table.objects.get(owner=owner)
    assert game.status == Table.Status.FINISHED and validate_replay(game.replay) == []
    assert _person_moves(game.replay) == clicked and clicked
    return game, clicked


def test_a_pushed_game_played_by_clicks_gets_the_bots_moves_as_events_and_never_polls(
    page: Page, push_redis: str, real_workers: Any, asgi_server: Any, owner: Any,
    password: str
) -> None:
    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1)
    base = asgi_server()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    game, clicked = _play_a_deal(page, base, owner, password)
    info = page.evaluate(PLAY_INFO)
    assert info["transport"] == "push" and info["polls"] == 0
    bot_moves = sum(len(d["bids"]) + 4 * len(d["tricks"]) for d in
                    game.replay["games"][0]["deals"]) - len(clicked)
    # An event per turn of the person's, each bringing the bots' answers since together (the
    # first states, the end and the game over besides): fewer events than the bots' moves.
    assert len(clicked) < info["events"] <= len(clicked) + 5 < bot_moves
    assert [url for url in requested if url.endswith(f"/play/{game.pk}/events/")]
    assert not [url for url in requested if "/state/" in url]
    test_browser.shot(page, "play-pushed-over")


def test_a_browser_without_event_source_plays_by_polling_once_a_second_while_nobody_moves(
    page: Page, push_redis: str, real_workers: Any, asgi_server: Any, owner: Any,
    password: str
) -> None:
    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1)
    base = asgi_server()
    page.add_init_script("delete window.EventSource;")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    game, _ = _play_a_deal(page, base, owner, password)
    info = page.evaluate(PLAY_INFO)
    assert info["transport"] == "poll" and info["events"] == 0 and info["polls"] > 0
    assert not [url for url in requested if "/events/" in url]
    assert len([url for url in requested if f"/play/{game.pk}/state/" in url]) == info["polls"]
    # While the person thinks (nobody moves) the page asks once a second; faster only while
    # a bot is to play or the person's move is on its way.
    idle = [w for w in info["waits"] if w["status"] == "running" and w["yourTurn"]
            and not w["pending"]]
    assert idle and all(w["ms"] >= 1000 for w in idle)
    assert all(w["ms"] >= 250 for w in info["waits"])


def test_a_trick_the_bots_complete_stays_on_the_table_when_one_event_brings_the_next_lead(
    page: Page, push_redis: str, real_workers: Any, asgi_server: Any, owner: Any,
    password: str
) -> None:
    from tests.browser.test_play_table_browser import MOVED_ON
    from tests.play.test_play_browser import READY, _click_a_move

    real_workers("KAISER_PLAY_QUEUE", pool="threads", concurrency=1)
    _start_a_deal(page, asgi_server(), owner, password)
    while True:
        page.wait_for_function(READY, timeout=60_000)
        assert page.locator("#play").get_attribute("data-status") == "running", \
            "the deal ended before the person played a card the bots' cards followed"
        view = page.evaluate("() => window.kaiserPlay.game.view")
        seq = view["seq"]
        if view["decision"] == "play" and len((view["trick"] or {}).get("cards", [])) < 3 \
                and view["tricks_done"] < 7:
            break  # the bots complete this trick and the winner leads the next (or it's ours)
        _click_a_move(page)
        page.wait_for_function("seq => window.kaiserPlay.game.seq !== seq", arg=seq,
                               timeout=60_000)
    events = page.evaluate("() => window.kaiserPlay.events")
    card = page.locator(".seat-0 .hand .card.legal").first
    code = card.get_attribute("data-card")
    card.click()
    # The trick, completed by a bot, is held on the table with the person's card in it,
    # though the same single event brought the lead of the next trick too.
    page.wait_for_function(MOVED_ON, arg=[code, seq], timeout=30_000)
    assert page.evaluate("() => window.kaiserPlay.events") == events + 1
    assert page.evaluate("() => window.kaiserPlay.game.view.tricks_done") == \
        view["tricks_done"] + 1
    test_browser.shot(page, "play-pushed-trick-held")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#p-resign")
    expect(page.locator("#play")).to_have_attribute("data-status", "finished", timeout=30_000)
