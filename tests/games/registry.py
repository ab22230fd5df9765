"""The test games' plugins, registered in this process while a test needs them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from engine.games import GAMES, Game

TEST_GAME_MODULES = ("tests.games.duel.plugin", "tests.games.quartet.plugin")


@contextmanager
def registered(module: str) -> Iterator[Game]:
    """The game of a plugin module in the registry while the block runs; forgotten afterwards
    unless it was there before (a game named in KAISER_GAME_PLUGINS stays)."""
    before = set(GAMES)
    game = GAMES.register(module)
    try:
        yield game
    finally:
        if game.name not in before:
            GAMES.unregister(game.name)


@contextmanager
def registered_test_games() -> Iterator[list[str]]:
    """Every test game in the registry, and the registry's names; afterwards the games this
    added are forgotten again (one named in KAISER_GAME_PLUGINS stays, as it was)."""
    before = set(GAMES)
    added = [GAMES.register(module).name for module in TEST_GAME_MODULES]
    try:
        yield list(GAMES)
    finally:
        for name in added:
            if name not in before:
                GAMES.unregister(name)
