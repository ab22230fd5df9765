"""The schema of a second game: a bot, a ladder, a tournament and a match each belong to one
game; a Sergeant Major match has a third player, and the database refuses a match whose
players or game do not fit."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from bots.models import Bot, BotVersion
from ladder.models import Ladder
from matches.models import Match, conditions_errors
from tests.factories import match_make
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def _version(owner: Any, name: str, game: str = "sergeant-major") -> BotVersion:
    bot = Bot.objects.create(owner=owner, name=name, game=game)
    return BotVersion.objects.create(bot=bot, number=1, kind="builtin", builtin="builtin:random",
                                     status=BotVersion.Status.ACTIVE)


def _match(a: BotVersion, b: BotVersion, c: BotVersion | None, game: str) -> Match:
    return match_make(versions=[v for v in (a, b, c) if v is not None],
                      kind=Match.Kind.CHALLENGE, game=game, rules="952", games_per_match=3)


def test_rows_made_without_a_game_are_kaiser(house: Any) -> None:
    bot = Bot.objects.create(owner=house, name="plain")
    assert bot.game == "kaiser"
    assert Ladder.objects.get(slug="main").game == "kaiser"


def test_the_migration_makes_a_sergeant_major_ladder() -> None:
    ladder = Ladder.objects.get(slug="sergeant-major")
    assert (ladder.game, ladder.rules, ladder.games_per_match) == (
        "sergeant-major", "952-six-hands", 3)
    ladder.full_clean()


def test_a_raw_insert_that_names_no_game_makes_a_kaiser_bot(house: Any) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO bots_bot (owner_id, name, description, retired, created) "
                       "VALUES (%s, 'rawbot', '', false, CURRENT_TIMESTAMP)", [house.pk])
    assert Bot.objects.get(name="rawbot").game == "kaiser"


@pytest.mark.parametrize(("game", "rules", "games", "field"), [
    ("kaiser", "official", 3, "games_per_match"),
    ("kaiser", "952", 2, "rules"),
    ("sergeant-major", "official", 3, "rules"),
    ("sergeant-major", "952", 2, "games_per_match"),
    ("sergeant-major", "952", 4, "games_per_match"),
    ("chess", "official", 2, "game"),
])
def test_conditions_that_do_not_fit_the_game_are_refused(game: str, rules: str, games: int,
                                                         field: str) -> None:
    assert list(conditions_errors(game=game, rules=rules, games_per_match=games)) == [field]
    ladder = Ladder(name="x", slug="x", game=game, rules=rules, games_per_match=games)
    with pytest.raises(ValidationError) as caught:
        ladder.full_clean()
    assert field in caught.value.message_dict


@pytest.mark.parametrize(("game", "rules", "games"), [
    ("kaiser", "official", 2), ("kaiser", "official", 6), ("sergeant-major", "952", 3),
    ("sergeant-major", "853", 9), ("sergeant-major", "952-kitty-first", 6)])
def test_conditions_that_fit_the_game_pass(game: str, rules: str, games: int) -> None:
    assert conditions_errors(game=game, rules=rules, games_per_match=games) == {}
    Tournament(name="t", format="round_robin", game=game, rules=rules,
               games_per_match=games).full_clean()


def test_the_error_says_what_a_sergeant_major_match_needs() -> None:
    errors = conditions_errors(game="sergeant-major", rules="952", games_per_match=4)
    assert "whole sets of 3 games" in errors["games_per_match"]


def test_a_sergeant_major_match_has_three_different_players(house: Any) -> None:
    a, b, c = (_version(house, n) for n in ("sm-a", "sm-b", "sm-c"))
    match = _match(a, b, c, "sergeant-major")
    assert match.version_ids == [a.pk, b.pk, c.pk]
    for third in (a, b):
        with pytest.raises(IntegrityError), transaction.atomic():
            _match(a, b, third, "sergeant-major")


def test_the_third_player_is_there_exactly_in_sergeant_major(house: Any) -> None:
    """As many players as the game has sides: match_create refuses a Sergeant Major match of
    two and a Kaiser match of three, and makes no row (the check is the service's, for any
    game; the database's check that named Sergeant Major went with issue 32)."""
    from matches.services import match_create

    a, b, c = (_version(house, n) for n in ("sm-a", "sm-b", "sm-c"))
    sm = Ladder(name="x", slug="x", game="sergeant-major", rules="952", games_per_match=3)
    with pytest.raises(ValidationError, match="has 3 players"):
        match_create(versions=[a, b], kind=Match.Kind.CHALLENGE, conditions=sm)
    k1, k2 = (_version(house, n, game="kaiser") for n in ("k-a", "k-b"))
    with pytest.raises(ValidationError, match="has 2 players"):
        match_create(versions=[k1, k2, _version(house, "k-c", "kaiser")],
                     kind=Match.Kind.CHALLENGE, conditions=Ladder(name="k", slug="k"))
    assert not Match.objects.exists()
    made = match_create(versions=[a, b, c], kind=Match.Kind.CHALLENGE,
                        conditions=sm)
    assert (made.version_ids, [s.version_id for s in made.sides.order_by("order")]) == (
        [a.pk, b.pk, c.pk], [a.pk, b.pk, c.pk])
    kaiser = match_make(versions=[k1, k2], kind=Match.Kind.CHALLENGE)
    assert (kaiser.game, kaiser.version_ids) == ("kaiser", [k1.pk, k2.pk])
