"""The pages ask a game what it has (issue 42): boards (engine.games.Game.has_boards), partners
(has_partners) and a person's table (has_person_table), and say nothing of what it has not.
Kaiser has all three; Sergeant Major has a table, but neither boards nor partners."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from bots.models import Bot
from bots.services import bot_builtin_add
from engine.games import GAMES
from ladder.models import LadderEntry
from ladder.services import game_ladder_ensure
from matches.models import Match
from tests.matches.sm_matches import sm_replay, stored_sm_match

pytestmark = pytest.mark.django_db


def _games() -> dict[str, Any]:
    """The built-in games by what they have, asked of the registry (no name in this test)."""
    with_boards = next(g for g in GAMES.values() if g.has_boards)
    without = next(g for g in GAMES.values() if not g.has_boards and not g.has_partners)
    return {"boards": with_boards, "plain": without}


def test_the_registry_says_what_each_game_has() -> None:
    games = _games()
    assert games["boards"].has_partners and games["boards"].has_person_table
    assert games["plain"].has_person_table and games["plain"].seats == len(games["plain"].sides)


def test_only_a_match_of_a_game_with_boards_links_them(play_match: Any, house: Any) -> None:
    kaiser_match = play_match()
    page = Client().get(f"/matches/{kaiser_match.pk}/").content.decode()
    assert 'id="boards-link"' in page
    sm_match = stored_sm_match(sm_replay("9"), house)
    page = Client().get(f"/matches/{sm_match.pk}/").content.decode()
    assert sm_match.status == Match.Status.FINISHED and 'id="boards-link"' not in page
    assert Client().get(f"/matches/{sm_match.pk}/boards/").status_code == 404


def test_a_bot_page_says_boards_and_partners_only_for_a_game_that_has_them(
        play_match: Any, house: Any) -> None:
    kaiser_match = play_match()
    page = Client().get(f"/bots/{kaiser_match.side_list[0].version.bot_id}/").content.decode()
    assert "Costliest boards" in page and "as its partner or its opponents" in page
    sm_match = stored_sm_match(sm_replay("10"), house)
    answer = Client().get(f"/bots/{sm_match.side_list[0].version.bot_id}/?boards_version=v9")
    page = answer.content.decode()
    assert answer.status_code == 200  # no boards: no version of them to get wrong either
    assert "Costliest boards" not in page and "swing" not in page
    assert 'id="people-games"' in page and "as its opponents" in page
    assert "partner" not in page.split('id="people-games"')[1]


def test_the_ladder_says_elo_moves_from_boards_only_for_a_game_with_boards(house: Any) -> None:
    games = _games()
    for spec, words in ((games["boards"], "from its boards"), (games["plain"], "from its result")):
        ladder = game_ladder_ensure(spec.name)
        bot = Bot.objects.create(owner=house, name=f"words-{spec.seats}", game=spec.name)
        version = bot_builtin_add(bot=bot, spec="builtin:random")
        LadderEntry.objects.create(ladder=ladder, version=version, games=1)
        page = Client().get(f"/ladders/{ladder.slug}/").content.decode()
        assert f"updated after every rated match {words}" in page, spec.name
