"""A game written by a stranger from docs/games.md alone plays through the stack (issue 42).

Trio (tests/games/outside/trio_arena/, three players, numbers picked in turn, a number picked
twice in a round scores nothing) was written by following only the guide, outside the
project's packages: `tests/games/outside/` is a folder put on the path (PYTHONPATH), as an
author's own checkout would be, and the game is registered by KAISER_GAME_PLUGINS alone,
`trio_arena.plugin`, never as `tests.games...`. Checked here as the guide says to: the
conformance suite over it, `arena_seed` (its ladder and house bots), an author's program
through the upload check, its ladder played on a real Celery worker, the match page, the
replay and its words in the API, the replay viewer in headless Chromium (the generic
stepper), its statistics on the bot page, and the downloadable runner validating a stored
replay and playing a match of its own."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import Page, expect
from rest_framework.test import APIClient

from bots.models import Bot
from bots.services import bot_builtin_add
from engine import zipapp
from engine.games import Game
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry
from matches.models import Match
from matches.stats import play_stats_fold
from tests.architecture.test_house_rules import ROOT
from tests.browser import test_browser
from tests.games.registry import registered
from tests.games.test_quartet_stack import browser, page  # noqa: F401 (fixtures)
from tests.ladder_stack import ladder_worker, upload_verdict, wait_rated
from tests.processes import LoggedProcess

pytestmark = [pytest.mark.timeout(500)]

OUTSIDE = Path(__file__).resolve().parent / "outside"  # the author's folder, on the path
PLUGIN = "trio_arena.plugin"
RATED_MATCHES = 2
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # as tests/browser/conftest.py


def outside_env() -> dict[str, str]:
    """This process's environment with the plugin named and its folder on the path, as the
    guide tells an author to give every process (web, workers, runner)."""
    path = os.pathsep.join(p for p in (str(OUTSIDE), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "KAISER_GAME_PLUGINS": PLUGIN, "PYTHONPATH": path}


@pytest.fixture
def trio(monkeypatch: pytest.MonkeyPatch) -> Iterator[Game]:
    for name, value in outside_env().items():
        if os.environ.get(name) != value:
            monkeypatch.setenv(name, value)
    monkeypatch.syspath_prepend(str(OUTSIDE))
    with registered(PLUGIN) as game:
        yield game


@pytest.fixture
def worker(trio: Game, settings: Any, tmp_path: Path) -> Iterator[LoggedProcess]:
    yield from ladder_worker(settings, tmp_path, "kaiser-outside")


def _run(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, env=outside_env(),
                          capture_output=True, text=True, timeout=timeout)


def test_the_conformance_suite_passes_over_the_outside_game(trio: Game) -> None:
    suite = _run("-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                 "-n", "0", "tests/engine/test_game_conformance.py", "-k", trio.name, cwd=ROOT)
    assert suite.returncode == 0, suite.stdout[-4000:]
    passed = re.search(r"(\d+) passed", suite.stdout)
    assert passed and int(passed.group(1)) >= 10, suite.stdout[-2000:]
    assert "failed" not in suite.stdout and "skipped" not in suite.stdout


def test_the_runner_says_which_plugin_it_cannot_import(tmp_path: Path) -> None:
    """Run where the package is not on the path, the runner names the variable's module and
    what to do, in one line (it died in importlib's traceback before reading its arguments)."""
    runner = tmp_path / "kaiser-engine.pyz"
    assert zipapp.main([str(runner)]) == 0
    env = {k: v for k, v in outside_env().items() if k != "PYTHONPATH"}
    lost = subprocess.run([sys.executable, str(runner), "validate", "replay.json"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert lost.returncode == 1 and "Traceback" not in lost.stderr, lost.stderr
    assert lost.stderr.startswith(f"error: KAISER_GAME_PLUGINS names {PLUGIN!r}, which cannot "
                                  "be imported here"), lost.stderr
    assert "PYTHONPATH" in lost.stderr


@pytest.mark.django_db
def test_arena_seed_gives_the_outside_game_its_ladder_and_house_bots(trio: Game) -> None:
    out = io.StringIO()
    call_command("arena_seed", stdout=out)
    assert "house bot trio-greedy v1 (builtin:greedy)" in out.getvalue()
    ladder = Ladder.objects.get(slug=trio.home_ladder["slug"])
    assert (ladder.game, ladder.players, ladder.games_per_match) == (trio.name, 3, 3)
    entries = dict(LadderEntry.objects.filter(ladder=ladder)
                   .values_list("version__bot__name", "pinned"))
    assert entries == {"trio-random": False, "trio-greedy": True}  # the anchor pinned


def _ladder_versions(game: Game) -> list[int]:
    """An author's program through the real upload check, and two built-in players'
    versions, each bot of an owner of its own (a table never seats one owner twice)."""
    verdict = upload_verdict("trio-author", (OUTSIDE / "trio_bot.py").read_bytes(),
                             game=game.name)
    assert verdict["status"] == "active", verdict
    # The check plays one set of the check preset: every game counted, drawn ones too.
    assert f"played {game.games_per_set} games" in json.dumps(verdict), verdict
    versions = [int(verdict["id"])]
    for name, spec in (("trio-random-1", "builtin:random"), ("trio-greedy-1", "builtin:greedy")):
        bot = Bot.objects.create(owner=User.objects.create_user(username=f"author-of-{name}"),
                                 name=name, game=game.name)
        versions.append(bot_builtin_add(bot=bot, spec=spec).pk)
    return versions


def _check_match_reads(game: Game, match: Match, anon: APIClient) -> dict[str, Any]:
    """The match's page, API, replay and its words; returns the replay."""
    data = anon.get(f"/api/v1/matches/{match.pk}/").json()
    assert [side["version"] for side in data["sides"]] == match.version_ids
    assert all(side["points"] is not None for side in data["sides"]), data["sides"]
    answer = anon.get(f"/api/v1/matches/{match.pk}/replay/")
    assert answer.status_code == 200, answer.content
    replay = answer.json()
    assert replay["format"] == game.replay_format and game.validate_replay(replay) == []
    words = anon.get(f"/api/v1/matches/{match.pk}/replay-text/")
    assert words.status_code == 200 and words.json()["steps"] == game.replay_steps(replay)
    text = anon.get(f"/matches/{match.pk}/").content.decode()
    assert game.title in text and "trio-author" in text
    assert "partner" not in text.lower() and "boards" not in text.lower()
    assert anon.get(f"/matches/{match.pk}/boards/").status_code == 404
    return replay  # type: ignore[no-any-return]


def _check_viewer(game: Game, tab: Page, url: str, replay: dict[str, Any]) -> None:
    """The replay viewer steps through the first game's moves in words."""
    first = [step["text"] for step in game.replay_steps(replay) if step["game"] == 0]
    tab.goto(url)
    viewer = tab.locator("#viewer")
    expect(viewer).to_have_class(test_browser.LOADED)
    expect(viewer).to_have_class(re.compile(r"\bgame-generic\b"))
    expect(tab.locator("#v-deal option")).to_have_count(len(replay["games"]))
    now = tab.locator("#v-trick")
    expect(now).to_have_text(first[0])
    tab.locator("#v-next").click()
    expect(now).to_have_text(first[1])
    tab.locator("#v-last").click()
    expect(now).to_have_text(first[-1])


def _check_runner(game: Game, replay: dict[str, Any], tmp_path: Path) -> None:
    """The downloadable runner, built as the README says, run from the author's folder:
    it validates the site's replay and plays a match of the game."""
    runner = tmp_path / "kaiser-engine.pyz"
    assert zipapp.main([str(runner)]) == 0
    stored = tmp_path / "stored.json"
    stored.write_text(json.dumps(replay))
    valid = _run(str(runner), "validate", str(stored), cwd=OUTSIDE)
    assert (valid.returncode, valid.stdout.strip()) == (0, f"{stored}: valid"), valid.stderr
    played = tmp_path / "played.json"
    match = _run(str(runner), "match", "trio_bot.py", "builtin:greedy", "builtin:random",
                 "--game", game.name, "--replay", str(played), "--quiet", cwd=OUTSIDE)
    assert match.returncode == 0, match.stderr
    assert game.validate_replay(json.loads(played.read_text())) == []
    shown = _run(str(runner), "show", str(played), cwd=OUTSIDE)
    assert shown.returncode == 0 and "=== Game 0" in shown.stdout, shown.stderr


@pytest.mark.worker
@pytest.mark.browser
@pytest.mark.sandbox
@pytest.mark.django_db(transaction=True)
def test_the_outside_game_plays_its_ladder_pages_viewer_and_runner(
        trio: Game, worker: LoggedProcess, live_server: Any, page: Page,  # noqa: F811
        tmp_path: Path) -> None:
    versions = _ladder_versions(trio)
    ladder = ladder_services.game_ladder_ensure(trio.name)
    assert (ladder.game, ladder.players) == (trio.name, 3)
    Ladder.objects.exclude(pk=ladder.pk).update(active=False)
    ladder.queue_depth = 1
    ladder.save(update_fields=["queue_depth"])
    assert ladder_services.ladder_schedule(ladder_id=ladder.pk) == 1  # then it refills itself
    wait_rated(ladder, RATED_MATCHES, timeout=400)
    Ladder.objects.filter(pk=ladder.pk).update(active=False)

    finished = list(Match.objects.filter(ladder=ladder, status=Match.Status.FINISHED))
    assert all(sorted(match.version_ids) == sorted(versions) for match in finished)
    anon = APIClient()
    replay = _check_match_reads(trio, finished[0], anon)
    _check_viewer(trio, page, f"{live_server.url}/matches/{finished[0].pk}/", replay)
    _check_runner(trio, replay, tmp_path)
    board = anon.get(f"/api/v1/ladders/{ladder.slug}/").json()
    assert {row["name"] for row in board["leaderboard"]} >= {"trio-author", "trio-random-1"}
    _check_no_borrowed_words(anon, ladder, Bot.objects.get(name="trio-author"))
    _check_statistics(trio, anon, versions[0])


def _check_statistics(game: Game, anon: APIClient, version_id: int) -> None:
    """Folded from the replays by the game's own counts; the bot page shows its figures by
    their names (the game has no template of the project's: it lives outside it)."""
    play_stats_fold()
    totals = anon.get(f"/api/v1/versions/{version_id}/stats/").json()["totals"]
    games = totals["games"]
    assert totals["matches"] >= RATED_MATCHES and totals["points"] > 0, totals
    assert games["won"] + games["lost"] + games["drawn"] == totals["matches"] * 3
    shown = game.stats_figures(totals)
    bot = Bot.objects.get(versions__pk=version_id)
    text = anon.get(f"/bots/{bot.pk}/").content.decode()
    row = re.search(r'<tr><th>Points</th><td class="num" data-stat="points">(\d+)</td>', text)
    assert row and int(row.group(1)) == shown["points"], text[text.find("play-stats"):][:3000]
    assert "<th>Wasted share</th>" in text


def _check_no_borrowed_words(anon: APIClient, ladder: Ladder, bot: Bot) -> None:
    """A game without boards, partners or a person's table shows none of their words on the
    ladder's page and its author's bot page."""
    for url in (f"/ladders/{ladder.slug}/", f"/bots/{bot.pk}/"):
        answer = anon.get(url)
        assert answer.status_code == 200, url
        text = answer.content.decode()
        assert "trio-author" in text, url
        for words in ("Costliest boards", "from its boards", "partner", "North"):
            assert words not in text, (url, words)
