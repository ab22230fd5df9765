"""Fixtures for the tournaments app: a ladder, and an in-process loop that plays queued matches
through the same service the task calls (bots: make_builtin and make_program, tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db.models import Max
from django.utils import timezone

from bots.models import Bot, BotVersion
from ladder.models import Ladder
from matches import services
from matches.models import Match
from tests.tournaments import sides

# A bot program that dies before answering hello: it forfeits every game it plays.
CRASHING_BOT = b"import sys\nsys.exit(3)\n"


@pytest.fixture
def ladder(db: None) -> Ladder:
    return Ladder.objects.create(name="Test ladder", slug="test", games_per_match=2,
                                 queue_depth=4)


@pytest.fixture
def play_queued(db: None) -> Callable[[], int]:
    return _play_queued


def _play_queued(limit: int = 500) -> int:
    """Play every queued match in this process, oldest first, until none is left (matches
    created along the way, like a tournament's next round, are played too)."""
    played = 0
    while played < limit:
        match = Match.objects.filter(status=Match.Status.QUEUED).order_by("id").first()
        if match is None:
            return played
        assert services.match_play(match_id=match.pk, worker="test") == "finished"
        played += 1
    raise AssertionError(f"still matches queued after {limit}")


@pytest.fixture
def match_made(db: None) -> Callable[..., Match]:
    """make(players, *, conditions, kind="ladder", status="finished", score=None, won=None,
    points=None, fault=("", ""), **fields): a match with its sides and result
    (tests/tournaments/sides.py)."""
    return sides.match_made


@pytest.fixture
def builtin_version(house: User) -> Callable[..., BotVersion]:
    """make(spec="builtin:greedy", *, bot=None, name="", owner=None, game="kaiser"): an active
    built-in version, the next of `bot`, or the first of a new bot `name` of `owner` (the
    house's by default). As bots.services gives a house player its version, without a check."""
    def make(spec: str = "builtin:greedy", *, bot: Bot | None = None, name: str = "",
             owner: User | None = None, game: str = "kaiser") -> BotVersion:
        bot = bot or Bot.objects.create(owner=owner or house, name=name, game=game)
        number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        return BotVersion.objects.create(
            bot=bot, number=number, kind=BotVersion.Kind.BUILTIN, builtin=spec,
            status=BotVersion.Status.ACTIVE, reason="built-in player", checked=timezone.now())
    return make
