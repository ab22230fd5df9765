"""Built-in players that run in-process, and resolving a player spec to a factory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.players import Player, PlayerFactory, TimeControl
from engine.seeded import SeededPlayer

if TYPE_CHECKING:
    from engine.kaiser.game import Action, GameState
    from engine.kaiser.rules import Rules


class RandomPlayer(SeededPlayer):
    """Uniform over the legal actions."""

    instant = True

    def act(self, state: GameState, legal: Sequence[Action]) -> Action:
        return legal[int(self.random() * len(legal))]

    def start(self, *, seat: int, rules: Rules, games: int, time: TimeControl,
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


def builtin_players() -> dict[str, tuple[type[Player], str]]:
    """name -> (class, version). Imported lazily: the stronger players are bigger modules."""
    from engine.kaiser.greedy import GreedyPlayer

    players: dict[str, tuple[type[Player], str]] = {
        "random": (RandomPlayer, "1"),
        "greedy": (GreedyPlayer, "1"),
    }
    try:
        from engine.kaiser.mc import MCPlayer
    except ImportError:
        pass
    else:
        players["mc"] = (MCPlayer, "1")
    return players


def resolve_player(spec: str, *, time: TimeControl | None = None, **options: Any) -> PlayerFactory:
    """`builtin:NAME`, or a path to a bot program (a .py file, a .zip, or an unpacked folder)."""
    if spec.startswith("builtin:"):
        name = spec.removeprefix("builtin:")
        known = builtin_players()
        if name not in known:
            raise ValueError(f"unknown built-in player {name!r}; choose one of "
                             f"{', '.join('builtin:' + n for n in known)}")
        cls, version = known[name]
        return BuiltinFactory(name, version, cls, {})
    from engine.botproc import program_player_factory

    return program_player_factory(spec, time=time or TimeControl(), **options)
