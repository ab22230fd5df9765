"""A lone author of either game gets rated matches (issue 34): ladder's migration 0007 makes
both games' house bots wherever their ladders are; the house's bots are not one owner at a
table, so a Sergeant Major bot with no other author sits with two of them; and the bot page
says, in words, what the bot waits for until its first rated match."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from bots.models import Bot, BotVersion
from bots.services import bot_retire
from ladder import services as ladder_services
from ladder.models import Ladder, LadderEntry
from ladder.selectors import bot_ladder_wait
from matches import services as match_services
from matches.models import Match

BEFORE = [("ladder", "0006_pair_tally")]  # the house bots come with ladder 0007


def _migrate(targets: list[tuple[str, str]] | None = None) -> None:
    """To the targets, or to the latest of every app (None)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets if targets is not None else executor.loader.graph.leaf_nodes())


@pytest.fixture
def back_to_before_the_house_bots(transactional_db: None) -> Iterator[None]:
    """The database at ladder 0006 with its two ladders, without house bots; migrated to the
    latest again afterwards, whatever the test did. The rows are made at the latest, with
    today's models, before going back: a model's later columns do not exist at 0006."""
    Bot.objects.filter(owner__username="house").delete()
    ladder_services.ladder_main_ensure()
    ladder_services.game_ladder_ensure("sergeant-major")
    _migrate(BEFORE)
    try:
        yield
    finally:
        _migrate()


def test_the_migration_makes_both_games_house_bots_and_anchors_and_spares_a_persons_bot(
        back_to_before_the_house_bots: None) -> None:
    someone = User.objects.create_user("someone")
    Bot.objects.create(owner=someone, name="Random", description="mine")  # a person's name
    _migrate()
    house = {v.bot.name: v for v in BotVersion.objects.filter(bot__owner__username="house")}
    assert set(house) == {"greedy", "sm-random", "sm-greedy"}
    assert {v.builtin for v in house.values()} == {"builtin:random", "builtin:greedy"}
    assert all(v.status == "active" for v in house.values())
    assert house["sm-random"].bot.game == house["sm-greedy"].bot.game == "sergeant-major"
    entries = {e.version.bot.name: (e.ladder.slug, e.pinned, e.elo) for e in
               LadderEntry.objects.filter(version__bot__owner__username="house")}
    assert entries == {"greedy": ("main", True, 1500.0),
                       "sm-greedy": ("sergeant-major", True, 1500.0),
                       "sm-random": ("sergeant-major", False, 1500.0)}
    assert Bot.objects.get(name="Random").owner == someone
    assert not User.objects.get(username="house").has_usable_password()


@pytest.fixture
def lone_author(db: None) -> BotVersion:
    """The site's house bots and one author with one checked Sergeant Major bot."""
    from bots.services import bot_builtin_add

    ladder_services.house_bots_ensure()
    ladder_services.house_bots_ensure("sergeant-major")
    author = User.objects.create_user("lonely")
    bot = Bot.objects.create(owner=author, name="lonely-bot", game="sergeant-major")
    return bot_builtin_add(bot=bot, spec="builtin:greedy")


def _page_words(version: BotVersion) -> str:
    page = html.unescape(Client().get(f"/bots/{version.bot_id}/").content.decode())
    found = re.search(r'<p class="waiting" id="bot-waiting">([^<]*)</p>', page)
    return found.group(1) if found else ""


def test_a_lone_authors_sergeant_major_bot_plays_the_house_bots_a_rated_match(
        lone_author: BotVersion, settings: Any) -> None:
    settings.KAISER_DISPATCH_DEPTH = 0  # the test plays the match itself
    ladder = Ladder.objects.get(slug="sergeant-major")
    assert _page_words(lone_author) == (
        "Version 1 joins the Sergeant Major ladder at its next scheduling round (every 10 s) "
        "and is queued for its first match then.")

    assert ladder_services.ladder_schedule(ladder_id=ladder.pk, rng=random.Random(3)) >= 1
    for match in Match.objects.filter(ladder=ladder):
        names = {side.version.bot.name for side in match.side_list}
        assert names == {"lonely-bot", "sm-random", "sm-greedy"} and match.rated
    match = Match.objects.filter(ladder=ladder).earliest("pk")
    assert _page_words(lone_author) == (
        "Queued for its first rated match on the Sergeant Major ladder.")

    assert match_services.match_play(match_id=match.pk, worker="lone-author") == "finished"
    entry = LadderEntry.objects.get(ladder=ladder, version=lone_author)
    assert entry.games == 1 and entry.elo != 1500.0
    assert _page_words(lone_author) == ""
    assert bot_ladder_wait(bot=lone_author.bot, playing=lone_author) == ""


def test_without_the_house_bots_the_page_says_how_many_more_bots_the_table_needs(
        lone_author: BotVersion, make_sm_builtin: Callable[..., Any]) -> None:
    ladder = Ladder.objects.get(slug="sergeant-major")
    for bot in Bot.objects.filter(owner__username="house", game="sergeant-major"):
        bot_retire(bot=bot)
    wait = "Waiting for a table on the Sergeant Major ladder: it needs {} (a match seats one " \
           "bot an owner; each house bot counts as its own)."
    assert _page_words(lone_author) == wait.format("2 more bots of other owners")
    make_sm_builtin("a-second-author")
    ladder_services.ladder_entries_sync(ladder=ladder)  # the scheduler's next tick
    assert _page_words(lone_author) == wait.format("1 more bot of other owners")
    # Another bot of the same author fills no seat: a match seats one bot an owner.
    sibling = Bot.objects.create(owner=lone_author.bot.owner, name="lonely-twin",
                                 game="sergeant-major")
    from bots.services import bot_builtin_add

    bot_builtin_add(bot=sibling, spec="builtin:random")
    ladder_services.ladder_entries_sync(ladder=ladder)
    assert _page_words(lone_author) == wait.format("1 more bot of other owners")


def test_a_kaiser_bot_alone_with_the_house_bots_is_paired_with_one(db: None,
                                                                    settings: Any) -> None:
    from bots.services import bot_builtin_add

    ladder_services.house_bots_ensure()
    bot = Bot.objects.create(owner=User.objects.create_user("solo"), name="solo-bot")
    version = bot_builtin_add(bot=bot, spec="builtin:random")
    main = Ladder.objects.get(slug="main")
    assert ladder_services.ladder_schedule(ladder_id=main.pk, rng=random.Random(1)) >= 1
    for match in Match.objects.filter(ladder=main):
        assert version.pk in match.version_ids
        assert {side.version.bot.owner.username for side in match.side_list} == {
            "solo", "house"}
    assert _page_words(version) == "Queued for its first rated match on the Main ladder."
