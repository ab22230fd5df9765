"""Sergeant Major bots for the site's tests: built-in players and uploaded programs."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

PROGRAMS = Path(__file__).parent / "programs"
STARTER = Path(__file__).resolve().parents[2] / "bots" / "examples" / "sergeant_major_bot.py"


@pytest.fixture
def make_sm_program(house: User) -> Callable[..., Any]:
    """make(name, content): a Sergeant Major bot (own owner) whose active version runs
    `content` (a bot.py), without the upload check."""
    from bots.models import Bot, BotProgram, BotVersion

    def make(name: str, content: bytes) -> Any:
        program, _ = BotProgram.objects.get_or_create(
            sha256=hashlib.sha256(content).hexdigest(),
            defaults={"content": content, "size": len(content)})
        owner = User.objects.create_user(username=f"owner-of-{name}")
        bot = Bot.objects.create(owner=owner, name=name, game="sergeant-major")
        return BotVersion.objects.create(bot=bot, number=1, kind="py", program=program,
                                         filename="bot.py", size=len(content),
                                         status=BotVersion.Status.ACTIVE)

    return make
