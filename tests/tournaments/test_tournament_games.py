"""Tournaments of a game the site was not written for: a two-player test game (Duel, of
tests/games) runs to its end with standings counted by the same rules, and a game of four
players a match is said to be "not offered" rather than crashing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from bots.models import BotVersion
from engine.games import GAMES
from tests.games.registry import registered_test_games
from tests.tournaments import sides
from tournaments import selectors, services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel(builtin_version: Callable[..., BotVersion]) -> Iterator[Callable[..., BotVersion]]:
    with registered_test_games():
        yield lambda name, spec="builtin:greedy": builtin_version(
            spec, name=name, owner=User.objects.create_user(f"owner-of-{name}"), game="duel")


def test_a_round_robin_of_a_test_game_plays_to_its_end(duel: Any, play_queued: Any) -> None:
    field = [duel("duel-greedy"), duel("duel-random-1", "builtin:random"),
             duel("duel-random-2", "builtin:random")]
    t = services.tournament_create(name="Duel cup", format="round_robin", versions=field,
                                   game="duel", rules="short", games_per_match=2)
    assert play_queued() == 3
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    table = selectors.tournament_table(tournament=t)
    assert sum(r.points for r in table) == 3 and [r.played for r in table] == [2, 2, 2]
    won = {r.version_id: r.games_won for r in table}
    for version in field:  # games won, as the sides' rows hold them
        assert won[version.pk] == sum(s.games for m in t.matches.all()
                                      for s in sides.sides(m) if s.version_id == version.pk)


def test_a_knockout_of_a_test_game_without_a_tie_break_goes_to_the_seeds(
        duel: Any, play_queued: Any) -> None:
    field = [duel("duel-a"), duel("duel-b", "builtin:random")]
    t = services.tournament_create(name="Duel final", format="knockout", versions=field,
                                   game="duel", rules="short", games_per_match=2)
    play_queued()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    (final,) = t.matches.all()
    champion = t.entrants.get(final_rank=1).version_id
    won = {s.version_id: s.games for s in sides.sides(final)}
    if len(set(won.values())) == 2:
        assert won[champion] == max(won.values())
    else:  # a draw: Duel gives no tie-break ({}), so the better seed
        assert champion == field[0].pk


def test_a_game_of_four_players_a_match_is_not_offered(owner: User) -> None:
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
