"""Architecture invariant (docs/architecture.md, engine/tables.py): no table remembers another.
Every game of every registered game's match is played by players made for it alone, each
started once, told its game and seat, and closed; and the module that makes the tables names
no game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.builtin import resolve_player
from engine.games import GAMES
from engine.players import Player, TimeControl

ROOT = Path(__file__).resolve().parents[2]


class Counting:
    """A factory around a built-in player factory: every player made, and what it was told."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.version = inner, inner.name, inner.version
        self.players: list[Player] = []
        self.starts: dict[int, int] = {}
        self.closes: dict[int, int] = {}

    def __call__(self, slot: int) -> Player:
        player = self.inner(slot)
        start, close = player.start, player.close

        def counted_start(**kwargs: Any) -> None:
            self.starts[id(player)] = self.starts.get(id(player), 0) + 1
            start(**kwargs)

        def counted_close() -> None:
            self.closes[id(player)] = self.closes.get(id(player), 0) + 1
            close()

        player.start, player.close = counted_start, counted_close  # type: ignore[method-assign]
        self.players.append(player)
        return player


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_of_a_match_has_players_of_its_own(name: str) -> None:
    game = GAMES[name]
    sides = [Counting(resolve_player("builtin:random", game=name)) for _ in game.sides]
    games = 2 * game.games_per_set

    replay = game.run_match(sides, games=games, seed="tables",
                            rules=game.get_rules(game.default_preset), time=TimeControl())

    assert len(replay["games"]) == games
    made = [player for side in sides for player in side.players]
    assert sorted((p.game, p.seat) for p in made) == [
        (g, s) for g in range(games) for s in range(game.seats)]
    for side in sides:
        assert all(side.starts[id(p)] == 1 and side.closes[id(p)] == 1 for p in side.players)


def test_the_tables_module_names_no_game() -> None:
    text = (ROOT / "engine" / "tables.py").read_text()
    code = re.sub(r'""".*?"""', "", text, flags=re.S)
    for game in GAMES.values():
        assert game.name not in code and game.title not in code
    assert not re.search(r"^\s*(from|import)\s+engine\.(sergeant_major|game|rules)\b", code, re.M)
