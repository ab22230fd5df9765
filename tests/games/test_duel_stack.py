"""A third game, Duel, that exists only in the tests (tests/games/duel/), through the real
stack with no edit to the site: registered here (engine.games.GAMES.register in this process,
KAISER_GAME_PLUGINS for the worker), its bots uploaded and checked in the sandbox by the
game's own check, its ladder scheduled and played by a real Celery worker, a round-robin
tournament played to the end, and every page and API a user reads: the match page, the
replay, the bot's statistics, the leaderboard and the tournament's standings.

The site knows the game only by what it says of itself (engine.games.Game): two seats, two
sides without partners, sets of two games, no boards, no house bots."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from bots.models import BotVersion
from engine.games import GAMES, Game
from ladder import services as ladder_services
from ladder.models import Ladder, RatingChange
from matches.models import Match
from matches.stats import play_stats_fold
from tests.ladder_stack import ladder_worker, upload_checked, upload_verdict, wait_rated
from tests.processes import LoggedProcess
from tournaments import services as tournament_services
from tournaments.models import Tournament

pytestmark = [pytest.mark.worker, pytest.mark.sandbox, pytest.mark.django_db(transaction=True),
              pytest.mark.timeout(500)]

PLUGIN = "tests.games.duel.plugin"
HERE = Path(__file__).parent
PROGRAMS = HERE / "duel" / "programs"
ROOT = HERE.parents[1]
RATED_MATCHES = 6


@pytest.fixture
def duel(monkeypatch: pytest.MonkeyPatch) -> Iterator[Game]:
    """The test game, registered in this process and (through the environment) in the
    worker this test starts; forgotten afterwards."""
    monkeypatch.setenv("KAISER_GAME_PLUGINS", PLUGIN)
    game = GAMES.register(PLUGIN)
    yield game
    GAMES.unregister(game.name)


@pytest.fixture
def worker(duel: Game, settings, tmp_path: Path) -> Iterator[LoggedProcess]:
    yield from ladder_worker(settings, tmp_path, "kaiser-duel")


BOTS = (("duel-starter", (PROGRAMS / "duel_bot.py").read_bytes()),
        ("duel-random", (PROGRAMS / "duel_random_bot.py").read_bytes()))
KAISER_BOT = ROOT / "bots" / "examples" / "minimal_bot.py"


def _wait_finished(tournament: Tournament, timeout: float) -> Tournament:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            return tournament
        failed = Match.objects.filter(tournament=tournament,
                                      status__in=["failed", "void"]).first()
        assert failed is None, failed.error
        time.sleep(0.5)  # polling the database for the row this test waits for
    pytest.fail(f"the tournament is still {tournament.status} after {timeout} s")


def test_a_game_of_the_tests_plays_through_the_whole_stack(duel: Game,
                                                          worker: LoggedProcess) -> None:
    name = duel.name
    versions = [upload_checked(bot, content, game=name) for bot, content in BOTS]
    # A bot of another game is refused by this game's check, with the reason in words.
    verdict = upload_verdict("duel-wrong", KAISER_BOT.read_bytes(), game=name)
    assert verdict["status"] == "rejected" and verdict["reason"], verdict

    # The ladder: the game's home ladder, made from what the game says of itself.
    ladder = ladder_services.game_ladder_ensure(name)
    assert (ladder.slug, ladder.game, ladder.games_per_match) == (name, name, duel.games_per_set)
    Ladder.objects.exclude(pk=ladder.pk).update(active=False)
    ladder.queue_depth = 1
    ladder.save(update_fields=["queue_depth"])
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 1  # then it refills itself
    wait_rated(ladder, RATED_MATCHES, timeout=240)
    Ladder.objects.filter(pk=ladder.pk).update(active=False)

    finished = list(Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED))
    anon = APIClient()
    for match in finished[:3]:
        assert sorted(match.version_ids) == sorted(versions) and match.game == name
        # The replay API serves the game's replay, which its own checker accepts.
        replay = anon.get(f"/api/v1/matches/{match.pk}/replay/")
        assert replay.status_code == 200, replay.content
        assert replay.json()["format"] == duel.replay_format
        assert duel.validate_replay(replay.json()) == []
        data = anon.get(f"/api/v1/matches/{match.pk}/").json()
        assert [side["version"] for side in data["sides"]] == match.version_ids
        # The match page shows both bots and the game's title; a game without boards has no
        # board pages.
        page = anon.get(f"/matches/{match.pk}/")
        assert page.status_code == 200
        text = page.content.decode()
        assert "duel-starter" in text and "duel-random" in text and duel.title in text
        assert anon.get(f"/matches/{match.pk}/boards/").status_code == 404
    assert RatingChange.objects.filter(match__in=finished).count() == 2 * len(finished)

    # The leaderboard lists both, with their rated matches counted, in the API and the page.
    board = anon.get(f"/api/v1/ladders/{name}/").json()
    assert board["game"] == name
    rows = {row["name"]: row for row in board["leaderboard"]}
    assert set(rows) == {"duel-starter", "duel-random"}
    assert all(row["games"] >= RATED_MATCHES for row in rows.values()), rows
    page = anon.get(f"/ladders/{name}/").content.decode()
    assert "duel-starter" in page and "duel-random" in page

    # Statistics: folded from the replays by the game's own counts.
    play_stats_fold()
    stats = anon.get(f"/api/v1/versions/{versions[0]}/stats/").json()
    totals = stats["totals"]
    games = totals["games"]
    assert totals["matches"] >= RATED_MATCHES
    assert games["won"] + games["lost"] + games["drawn"] == totals["matches"] * 2
    starter = BotVersion.objects.get(pk=versions[0])
    bot_page = anon.get(f"/bots/{starter.bot_id}/")
    assert bot_page.status_code == 200
    text = bot_page.content.decode()
    assert "duel-starter" in text and duel.title in text

    # A round robin of three: the two uploads and a third author's copy of the starter.
    third = upload_checked("duel-third", (PROGRAMS / "duel_bot.py").read_bytes() + b"\n",
                           game=name)
    entrants = list(BotVersion.objects.filter(pk__in=[*versions, third]).order_by("pk"))
    tournament = tournament_services.tournament_create(
        name="Duel open", format=Tournament.Format.ROUND_ROBIN, versions=entrants, game=name,
        rules="short", games_per_match=duel.games_per_set)
    tournament = _wait_finished(tournament, timeout=180)
    matches = Match.objects.filter(tournament=tournament)
    assert matches.count() == 3  # each pair of three once
    assert all(m.status == Match.Status.FINISHED for m in matches)
    results = anon.get(f"/api/v1/tournaments/{tournament.pk}/").json()
    standings = results["standings"]
    assert sorted(row["name"] for row in standings) == ["duel-random", "duel-starter",
                                                        "duel-third"]
    assert sum(row["played"] for row in standings) == 6, standings
    page = anon.get(f"/tournaments/{tournament.pk}/")
    assert page.status_code == 200 and "duel-third" in page.content.decode()


def test_the_test_game_is_named_only_in_its_own_files() -> None:
    """No file of the site or the engine names the test game: adding it touched nothing but
    its own files. (Tests that register it as a plugin, and the guide that walks it through,
    docs/games.md, name it as an example.)"""
    name = "duel"  # its name; the test reads it here rather than from the game, so that a
    # registry change cannot make the check vacuous
    tracked = subprocess.run(["git", "grep", "-l", "-i", "-w", name], cwd=ROOT,
                             capture_output=True, text=True, check=False).stdout.split()
    untracked = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"], cwd=ROOT,
        capture_output=True, text=True, check=True).stdout.split()
    naming = set(tracked) | {path for path in untracked if path.endswith((".py", ".html"))
                             and re.search(rf"\b{name}\b", (ROOT / path).read_text(),
                                           re.IGNORECASE)}
    outside = sorted(path for path in naming
                     if not path.startswith("tests/") and path != "docs/games.md")
    assert outside == [], f"these name the test game outside its own files: {outside}"
    assert any(path.startswith("tests/games/duel/") for path in naming)
