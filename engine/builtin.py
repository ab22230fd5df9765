"""Built-in players that run in-process, and resolving a player spec to a factory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.players import Player, PlayerFactory, TimeControl
from engine.seeded import SeededPlayer


class RandomPlayer(SeededPlayer):
    """Uniform over the legal actions."""

    instant = True

    def act(self, state: Any, legal: Sequence[Any]) -> Any:
        return legal[int(self.random() * len(legal))]

    def start(self, *, seat: int, rules: Any, games: int, time: TimeControl,
              seed: str) -> None:
        super().start(seat=seat, rules=rules, games=games, time=time, seed=seed)
        self.random = self.rng.random


@dataclass
class BuiltinFactory:
    name: str
    version: str
    player_class: type[Player]
    options: dict[str, Any]

    def __call__(self, slot: int) -> Player:
        return self.player_class(**self.options)


def resolve_player(spec: str, *, game: str | None = None, time: TimeControl | None = None,
                   **options: Any) -> PlayerFactory:
    """`builtin:NAME`, one of the built-in players of `game` (None: the registry's default
    game; `random` plays any game), or a path to a bot program (a .py file, a .zip, or an
    unpacked folder), whatever its game: it declares its game when the match starts."""
    if spec.startswith("builtin:"):
        from engine.games import default_game, get_game

        name = spec.removeprefix("builtin:")
        chosen = default_game() if game is None else get_game(game)
        known = chosen.builtin_players()
        if name not in known:
            of = "" if game is None else f" of {game}"
            raise ValueError(f"unknown built-in player {name!r}{of}; choose one of "
                             f"{', '.join('builtin:' + n for n in known)}")
        cls, version = known[name]
        return BuiltinFactory(name, version, cls, {})
    from engine.botproc import program_player_factory

    return program_player_factory(spec, time=time or TimeControl(), **options)
