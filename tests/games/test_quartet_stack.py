"""Quartet, the test game of four players without partners (tests/games/quartet/), played for
real (issue 42): its ladder scheduled in tables of four and played by a real Celery worker to
the end, each finished match rated (every player against each other), and what a reader sees
of it: the match page, the replay and the replay in words in the API, the replay viewer in
headless Chromium (its generic stepper, the game having no drawing), and the leaderboard.

Its bots are its built-in players (random and greedy), each made a bot version of its own
author's bot: four owners, since the ladder never seats one owner twice at a table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from rest_framework.test import APIClient

from bots.models import Bot
from bots.services import bot_builtin_add
from engine.games import Game
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry, RatingChange
from matches.models import Match
from tests.browser import test_browser
from tests.games.registry import registered
from tests.ladder_stack import ladder_worker, wait_rated
from tests.processes import LoggedProcess

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(400)]

PLUGIN = "tests.games.quartet.plugin"
RATED_MATCHES = 3
browser, page = test_browser.browser, test_browser.page
PLAYERS = (("q-random-1", "builtin:random"), ("q-greedy-1", "builtin:greedy"),
           ("q-random-2", "builtin:random"), ("q-greedy-2", "builtin:greedy"))


@pytest.fixture(autouse=True, scope="module")
def _database_beside_playwright() -> Iterator[None]:
    """Playwright's sync API runs an event loop in this thread, and this module's test reads
    the database beside it (the database's own fixtures too, flushing it after the test):
    allowed for this module only, not the process (Django reads the variable at each call)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture
def quartet(monkeypatch: pytest.MonkeyPatch) -> Iterator[Game]:
    """The test game, registered in this process and (through the environment) in the
    worker this test starts; forgotten afterwards."""
    monkeypatch.setenv("KAISER_GAME_PLUGINS", PLUGIN)
    with registered(PLUGIN) as game:
        yield game


@pytest.fixture
def worker(quartet: Game, settings, tmp_path: Path) -> Iterator[LoggedProcess]:
    yield from ladder_worker(settings, tmp_path, "kaiser-quartet")


def test_four_players_play_the_ladder_on_a_real_worker(
        quartet: Game, worker: LoggedProcess, live_server: Any, page: Page) -> None:
    name = quartet.name
    versions = []
    for bot_name, spec in PLAYERS:
        owner = User.objects.create_user(username=f"author-of-{bot_name}")
        bot = Bot.objects.create(owner=owner, name=bot_name, game=name)
        versions.append(bot_builtin_add(bot=bot, spec=spec).pk)

    ladder = ladder_services.game_ladder_ensure(name)
    assert (ladder.game, ladder.players, ladder.games_per_match) == (name, 4,
                                                                     quartet.games_per_set)
    Ladder.objects.exclude(pk=ladder.pk).update(active=False)
    ladder.queue_depth = 1
    ladder.save(update_fields=["queue_depth"])
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 1  # then it refills itself
    wait_rated(ladder, RATED_MATCHES, timeout=300)
    Ladder.objects.filter(pk=ladder.pk).update(active=False)

    finished = list(Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED))
    anon = APIClient()
    for match in finished[:2]:
        assert sorted(match.version_ids) == sorted(versions) and match.game == name
        data = anon.get(f"/api/v1/matches/{match.pk}/").json()
        assert [side["version"] for side in data["sides"]] == match.version_ids
        assert all(side["points"] is not None for side in data["sides"]), data["sides"]
        replay = anon.get(f"/api/v1/matches/{match.pk}/replay/")
        assert replay.status_code == 200, replay.content
        assert replay.json()["format"] == quartet.replay_format
        assert quartet.validate_replay(replay.json()) == []
        assert len(replay.json()["games"]) == quartet.games_per_set
        words = anon.get(f"/api/v1/matches/{match.pk}/replay-text/")
        assert words.status_code == 200, words.content
        assert words.json()["steps"] == quartet.replay_steps(replay.json())
        answer = anon.get(f"/matches/{match.pk}/")
        assert answer.status_code == 200
        text = answer.content.decode()
        assert quartet.title in text and all(bot_name in text for bot_name, _ in PLAYERS)
        assert anon.get(f"/matches/{match.pk}/boards/").status_code == 404
    # The replay viewer, in a browser, steps through a played match's moves in words.
    match = finished[0]
    replay = anon.get(f"/api/v1/matches/{match.pk}/replay/").json()
    first = [s["text"] for s in quartet.replay_steps(replay) if s["game"] == 0]
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    viewer = page.locator("#viewer")
    expect(viewer).to_have_class(test_browser.LOADED)
    expect(viewer).to_have_class(re.compile(r"\bgame-generic\b"))
    expect(page.locator("#v-deal option")).to_have_count(quartet.games_per_set)
    now = page.locator("#v-trick")
    expect(now).to_have_text(first[0])
    expect(page.locator("#v-step")).to_have_text(f"step 1 of {len(first)} \u00b7 move")
    page.locator("#v-next").click()
    expect(now).to_have_text(first[1])
    page.locator("#v-last").click()
    expect(now).to_have_text(first[-1])

    # Each finished match moves the rating of each of its four players.
    changes = RatingChange.objects.filter(match__in=finished)
    assert changes.count() == 4 * len(finished)
    assert any(change.after != change.before for change in changes)
    entries = LadderEntry.objects.filter(ladder=ladder)
    assert entries.count() == 4
    assert any(entry.elo != entries[0].elo for entry in entries), list(entries.values())
    assert all(entry.games >= RATED_MATCHES for entry in entries)

    # The leaderboard lists the four, in the API and on its page.
    board = anon.get(f"/api/v1/ladders/{ladder.slug}/").json()
    assert board["game"] == name
    rows = {row["name"]: row for row in board["leaderboard"]}
    assert set(rows) == {bot_name for bot_name, _ in PLAYERS}
    assert all(row["games"] >= RATED_MATCHES for row in rows.values()), rows
    text = anon.get(f"/ladders/{ladder.slug}/").content.decode()
    assert all(bot_name in text for bot_name, _ in PLAYERS)
