"""The upload verdict counts the games its check played, drawn ones too: a three-player game
whose games can end with no winner (a point shared on equal totals) said "played 2 games"
after playing 3, because it added the games each side won outright (issue 42)."""

from __future__ import annotations

from typing import Any

import pytest

from bots.models import Bot, BotVersion
from bots.services import _verdict, bot_create


def _game(winner: int | None) -> dict[str, Any]:
    return {"seats": ["A", "B", "C"], "deals": [],
            "result": {"winner": winner, "score": [0, 0, 0], "points": [1, 1, 1]}}


@pytest.fixture
def sm_bot(owner: Any) -> Bot:
    return bot_create(owner=owner, name="three-games", game="sergeant-major")


@pytest.mark.django_db
def test_a_drawn_game_is_counted_among_the_games_played(sm_bot: Bot) -> None:
    version = BotVersion(bot=sm_bot, number=1)
    # Three games: A won one, the other two ended level (no winner), nobody faulted.
    replay = {"games": [_game(0), _game(None), _game(None)],
              "result": {"games": {"A": 1, "B": 0, "C": 0}, "score": {"A": 0.5},
                         "points": {"A": 1.5, "B": 0.75, "C": 0.75}, "forfeit": None}}
    verdict = _verdict(replay, version=version, seconds=1.0)
    assert verdict["status"] == BotVersion.Status.ACTIVE
    assert verdict["reason"] == "played 3 games against builtin:random without a fault"
    assert verdict["summary"]["games"] == {"A": 1, "B": 0, "C": 0}
