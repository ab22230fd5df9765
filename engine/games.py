"""The games the arena plays, behind one interface: Kaiser and Sergeant Major.

A game gives its presets and rules objects, the state of one game of a match (deal, decisions
and their legal actions, scoring, the observation a seat gets: the `State` protocol), the bot
protocol's JSON for its actions, its built-in players, matches (sets of games over the same
deals, the seats rotated or swapped so the cards' luck cancels), and replay validation.
The local runner asks `get_game(name)` (and the site can, or `game_of_replay(replay)`) and
uses the answer; the Sergeant Major modules are imported only when that game is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.players import Player, PlayerFactory, TimeControl

KAISER = "kaiser"
SERGEANT_MAJOR = "sergeant-major"


class State(Protocol):
    """One game in play, as every game implements it."""

    seat: int
    winner: int | None

    @property
    def decision(self) -> str | None: ...

    @property
    def deal_index(self) -> int: ...

    def legal_actions(self) -> Sequence[Any]: ...

    def apply(self, action: Any) -> None: ...

    def is_terminal(self) -> bool: ...

    def observation(self, seat: int) -> dict[str, Any]: ...

    def records(self) -> list[dict[str, Any]]: ...

    def partial_record(self) -> dict[str, Any]: ...


class Game(Protocol):
    name: str  # "kaiser", "sergeant-major": what a bot declares and a replay names
    title: str
    about: str  # the game in a line, for people: "the Canadian card game Kaiser: ..."
    match_about: str  # how a match deals its sets, for people: "duplicate: ..."
    rules_page: str  # its rules in the docs (docs/<rules_page>.md)
    seats: int
    sides: tuple[str, ...]  # the players of a match
    games_per_set: int  # games played over the same deals (a match is whole sets)
    replay_format: str

    @property
    def presets(self) -> Mapping[str, Any]: ...

    @property
    def default_preset(self) -> str: ...

    def get_rules(self, name: str) -> Any: ...

    def rules_from_dict(self, data: Any) -> Any: ...

    def new_state(self, rules: Any, *, seed: str, game: int) -> State: ...

    def seat_sides(self, game: int) -> list[str]: ...

    def legal_to_wire(self, state: Any, legal: Any) -> list[Any]: ...

    def action_from_wire(self, state: Any, value: Any) -> Any: ...

    def action_to_wire(self, decision: str | None, action: Any) -> Any: ...

    def builtin_players(self) -> dict[str, tuple[type[Player], str]]: ...

    def run_match(self, players: Sequence[PlayerFactory], *, games: int, seed: str,
                  rules: Any, time: TimeControl, on_progress: Any = None) -> dict[str, Any]: ...

    def validate_replay(self, replay: Any) -> list[str]: ...


class _Kaiser:
    name: str = KAISER
    title: str = "Kaiser"
    about: str = "the Canadian card game Kaiser: four seats, two teams of two, bids for points"
    match_about: str = "duplicate: each pair of games deals the same cards, the seats moved"
    rules_page: str = "rules"
    seats: int = 4
    sides: tuple[str, ...] = ("A", "B")
    games_per_set: int = 2
    replay_format: str = "kaiser-replay"

    @property
    def presets(self) -> Mapping[str, Any]:
        from engine.kaiser.rules import PRESETS

        return PRESETS

    @property
    def default_preset(self) -> str:
        return "official"

    def get_rules(self, name: str) -> Any:
        from engine.kaiser.rules import get_rules

        return get_rules(name)

    def rules_from_dict(self, data: Any) -> Any:
        from engine.kaiser.rules import Rules

        return Rules.from_dict(data)

    def new_state(self, rules: Any, *, seed: str, game: int) -> State:
        from engine.kaiser.game import GameState, pair_deals

        dealer, deals = pair_deals(rules, seed, game // 2)
        return GameState(rules, dealer=dealer, deals=deals, game=game)

    def seat_sides(self, game: int) -> list[str]:
        from engine.kaiser.match import seat_sides

        return seat_sides(game)

    def legal_to_wire(self, state: Any, legal: Any) -> list[Any]:
        from engine.kaiser.protocol import legal_to_wire

        return legal_to_wire(state, legal)

    def action_from_wire(self, state: Any, value: Any) -> Any:
        from engine.kaiser.protocol import action_from_wire

        return action_from_wire(state, value)

    def action_to_wire(self, decision: str | None, action: Any) -> Any:
        from engine.kaiser.protocol import action_to_wire

        return action_to_wire(decision, action)

    def builtin_players(self) -> dict[str, tuple[type[Player], str]]:
        from engine.builtin import builtin_players

        return builtin_players()

    def run_match(self, players: Sequence[PlayerFactory], *, games: int, seed: str,
                  rules: Any, time: TimeControl, on_progress: Any = None) -> dict[str, Any]:
        from engine.kaiser.match import run_match

        if len(players) != 2:
            raise ValueError(f"a Kaiser match has two players (A and B), not {len(players)}")
        return run_match(players[0], players[1], games=games, seed=seed, rules=rules,
                         time=time, on_progress=on_progress)

    def validate_replay(self, replay: Any) -> list[str]:
        from engine.kaiser.validate import validate_replay

        return validate_replay(replay)


class _SergeantMajor:
    name: str = SERGEANT_MAJOR
    title: str = "Sergeant Major (9-5-2)"
    about: str = ("Sergeant Major (9-5-2): three players, each for itself, each with a "
                  "target of tricks to make")
    match_about: str = "each set of three games deals the same cards, the seats rotated"
    rules_page: str = "rules-sergeant-major"
    seats: int = 3
    sides: tuple[str, ...] = ("A", "B", "C")
    games_per_set: int = 3
    replay_format: str = "sergeant-major-replay"

    @property
    def presets(self) -> Mapping[str, Any]:
        from engine.sergeant_major.rules import PRESETS

        return PRESETS

    @property
    def default_preset(self) -> str:
        return "952"

    def get_rules(self, name: str) -> Any:
        from engine.sergeant_major.rules import get_rules

        return get_rules(name)

    def rules_from_dict(self, data: Any) -> Any:
        from engine.sergeant_major.rules import SMRules

        return SMRules.from_dict(data)

    def new_state(self, rules: Any, *, seed: str, game: int) -> State:
        from engine.sergeant_major.game import SMState, set_deals

        dealer, deals = set_deals(seed, game // 3)
        return SMState(rules, dealer=dealer, deals=deals.source(), game=game)

    def seat_sides(self, game: int) -> list[str]:
        from engine.sergeant_major.match import seat_sides

        return seat_sides(game)

    def legal_to_wire(self, state: Any, legal: Any) -> list[Any]:
        from engine.sergeant_major.protocol import legal_to_wire

        return legal_to_wire(state, legal)

    def action_from_wire(self, state: Any, value: Any) -> Any:
        from engine.sergeant_major.protocol import action_from_wire

        return action_from_wire(state, value)

    def action_to_wire(self, decision: str | None, action: Any) -> Any:
        from engine.sergeant_major.protocol import action_to_wire

        return action_to_wire(decision, action)

    def builtin_players(self) -> dict[str, tuple[type[Player], str]]:
        from engine.builtin import RandomPlayer
        from engine.sergeant_major.mc import SMMCPlayer
        from engine.sergeant_major.players import SMGreedyPlayer

        return {"random": (RandomPlayer, "1"), "greedy": (SMGreedyPlayer, "1"),
                "mc": (SMMCPlayer, "1")}

    def run_match(self, players: Sequence[PlayerFactory], *, games: int, seed: str,
                  rules: Any, time: TimeControl, on_progress: Any = None) -> dict[str, Any]:
        from engine.sergeant_major.match import run_match

        if len(players) != 3:
            raise ValueError(f"a Sergeant Major match has three players (A, B and C), not "
                             f"{len(players)}")
        return run_match(list(players), games=games, seed=seed, rules=rules, time=time,
                         on_progress=on_progress)

    def validate_replay(self, replay: Any) -> list[str]:
        from engine.sergeant_major.validate import validate_replay

        return validate_replay(replay)


GAMES: dict[str, Game] = {KAISER: _Kaiser(), SERGEANT_MAJOR: _SergeantMajor()}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}") from None


def game_of_replay(replay: Any) -> Game:
    """The game a replay records, by its `format` (Kaiser's replays name no game)."""
    if isinstance(replay, dict):
        for game in GAMES.values():
            if replay.get("format") == game.replay_format:
                return game
    raise ValueError("not a replay of a known game (its format is neither kaiser-replay nor "
                     "sergeant-major-replay)")


def game_of_rules(rules: Any) -> Game:
    """The game a rules object belongs to (SMRules says so; Kaiser's Rules predate games)."""
    return GAMES[getattr(rules, "game", KAISER)]


def resolve_player(spec: str, *, game: str = KAISER, time: TimeControl | None = None,
                   **options: Any) -> PlayerFactory:
    """engine.builtin.resolve_player for any game: `builtin:NAME` names one of `game`'s
    built-in players (`random` plays any game); a path is a bot program, whatever its game
    (it declares its game when the match starts)."""
    from engine.builtin import BuiltinFactory
    from engine.builtin import resolve_player as resolve_kaiser

    if game == KAISER or not spec.startswith("builtin:"):
        return resolve_kaiser(spec, time=time, **options)
    name = spec.removeprefix("builtin:")
    known = get_game(game).builtin_players()
    if name not in known:
        raise ValueError(f"unknown built-in player {name!r} of {game}; choose one of "
                         f"{', '.join('builtin:' + n for n in known)}")
    cls, version = known[name]
    return BuiltinFactory(name, version, cls, {})
