"""Trio, a three-player game of unique picks, as a Kaiser Arena plugin."""

from __future__ import annotations

from typing import Any

from engine.games import PackagedGame
from trio_arena.game import TrioState
from trio_arena.players import builtin_players


class Trio(PackagedGame):
    name = "trio"
    title = "Trio"
    about = "Trio: three players pick numbers; only a number nobody else picked scores."
    match_about = "Sets of three games over the same round weights, each side on each seat."
    rules_page = ""
    seats = 3
    sides = ("A", "B", "C")
    games_per_set = 3
    default_preset = "standard"
    rules_class = "TrioRules"
    package = "trio_arena"
    replay_format = "trio-replay"
    has_boards = False
    check_preset = "short"
    house_bots = {"trio-random": "builtin:random", "trio-greedy": "builtin:greedy"}
    house_anchor = "trio-greedy"
    ups_scale = 0.0
    person_seat_labels = ()
    person_hidden = frozenset()

    def new_state(self, rules: Any, *, seed: str, game: int) -> TrioState:
        return TrioState(rules, seed=seed, game=game)

    def builtin_players(self) -> dict[str, tuple[type, str]]:
        return builtin_players()

    def winner_of_seat(self, seat: int) -> int:
        return seat


GAME = Trio()
