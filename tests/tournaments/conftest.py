"""Fixtures for the tournaments app: bots with built-in versions, program bots, a ladder, and
an in-process loop that plays queued matches through the same service the task calls."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from bots.models import Bot, BotProgram, BotVersion
from tournaments import services
from tournaments.models import Ladder, Match

# A bot program that dies before answering hello: it forfeits every game it plays.
CRASHING_BOT = b"import sys\nsys.exit(3)\n"


@pytest.fixture
def make_program(house: User) -> Callable[..., BotVersion]:
    def make(name: str, source: bytes, owner: User | None = None) -> BotVersion:
        sha = hashlib.sha256(source).hexdigest()
        program, _ = BotProgram.objects.get_or_create(
            sha256=sha, defaults={"content": source, "size": len(source)})
        bot = Bot.objects.create(owner=owner or house, name=name)
        return BotVersion.objects.create(
            bot=bot, number=1, kind=BotVersion.Kind.PYTHON, program=program, filename="bot.py",
            size=len(source), status=BotVersion.Status.ACTIVE)

    return make


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
