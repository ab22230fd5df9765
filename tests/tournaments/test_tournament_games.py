"""Tournaments of a game the site was not written for: a game of four players a match is said
to be "not offered" rather than crashing the check. (A two-player test game's tournament runs
in tests/games/test_duel_stack.py; the rules for any number of sides are test_standings'.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engine.games import GAMES
from tournaments import services

pytestmark = pytest.mark.django_db


def test_a_game_of_four_players_a_match_is_not_offered() -> None:
    GAMES.register("tests.tournaments.four_plugin")
    try:
        problems = services.tournament_problems(
            format="swiss", versions=[], rounds=1, game="foursome-test",
            entry_deadline=timezone.now() + timedelta(days=1))
        assert problems == {"game": [
            "tournaments of Foursome (a test game) are not offered: their formats play "
            "matches of two or of three players, and a Foursome (a test game) match has 4"]}
    finally:
        GAMES.unregister("foursome-test")
