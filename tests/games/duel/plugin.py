"""Duel as the runtime sees it (engine.games.Game): a game of the tests, registered by them
(GAMES.register("tests.games.duel.plugin")) or named in KAISER_GAME_PLUGINS."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.games import PackagedGame
from tests.games.duel import DUEL

if TYPE_CHECKING:
    from engine.games import State
    from engine.players import Player


class Duel(PackagedGame):
    name: str = DUEL
    title: str = "Duel (a test game)"
    about: str = "Duel (a test game): two players, twelve cards, the most tricks wins"
    match_about: str = "each pair of games deals the same cards, the seats swapped"
    rules_page: str = ""  # a test game has no page of its own (pages say the preset, unlinked)
    seats: int = 2
    sides: tuple[str, ...] = ("A", "B")
    games_per_set: int = 2
    default_preset: str = "standard"
    rules_class: str = "DuelRules"
    package: str = "tests.games.duel"
    replay_format: str = "duel-replay"
    has_boards: bool = False
    check_preset: str = "short"

    # --- a game in play ----------------------------------------------------------------------
    def new_state(self, rules: Any, *, seed: str, game: int) -> State:
        from tests.games.duel.game import DuelState, set_deals

        dealer, deals = set_deals(seed, game // 2)
        return DuelState(rules, dealer=dealer, deals=deals.source(), game=game)

    # --- players and matches -----------------------------------------------------------------
    def builtin_players(self) -> dict[str, tuple[type[Player], str]]:
        from engine.builtin import RandomPlayer
        from tests.games.duel.players import DuelGreedyPlayer

        return {"random": (RandomPlayer, "1"), "greedy": (DuelGreedyPlayer, "1")}

    # --- a person at the table (tests.games.duel.person) -------------------------------------
    person_seat_labels: tuple[str, ...] = ("your opponent",)
    person_hidden: frozenset[str] = frozenset()  # every card played is seen

    def winner_of_seat(self, seat: int) -> int:
        return seat  # each seat plays for itself


GAME = Duel()
