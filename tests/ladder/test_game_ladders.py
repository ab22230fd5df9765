"""Every registered game gets its home ladder (`manage.py arena_seed`, the production
container's start), house bots or none: a game of KAISER_GAME_PLUGINS without house bots got
no ladder, so its authors' bots had nowhere to play (issue 42)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.core.management import call_command

from engine.games import get_game
from ladder.models import Ladder, LadderEntry
from tests.games.registry import registered_test_games


@pytest.fixture
def test_games() -> Iterator[list[str]]:
    with registered_test_games() as names:
        yield names


@pytest.mark.django_db
def test_arena_seed_gives_a_game_without_house_bots_its_home_ladder(test_games: list[str]) -> None:
    duel = get_game("duel")
    assert duel.house_bots == {}  # the case: a game with no house bots
    for _ in range(2):  # idempotent
        call_command("arena_seed", stdout=io.StringIO())
    home = duel.home_ladder
    ladder = Ladder.objects.get(slug=home["slug"])
    assert (ladder.game, ladder.rules, ladder.games_per_match) == (
        "duel", home["rules"], home["games_per_match"])
    assert not LadderEntry.objects.filter(ladder=ladder).exists()
    # Every registered game has one, each of its own game.
    assert {ladder.game for ladder in Ladder.objects.all()} >= set(test_games)
