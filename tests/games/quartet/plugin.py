"""Quartet as the runtime sees it (engine.games.Game): a game of the tests, registered by them
(GAMES.register("tests.games.quartet.plugin")) or named in KAISER_GAME_PLUGINS."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.games import PackagedGame
from tests.games.quartet import QUARTET

if TYPE_CHECKING:
    from engine.games import State
    from engine.players import Player


class Quartet(PackagedGame):
    name: str = QUARTET
    title: str = "Quartet (a test game)"
    about: str = "Quartet (a test game): four players, each for itself, the most tricks wins"
    match_about: str = "each set of four games deals the same cards, the seats rotated"
    rules_page: str = ""  # a test game has no page of its own (pages say the preset, unlinked)
    seats: int = 4
    sides: tuple[str, ...] = ("A", "B", "C", "D")
    games_per_set: int = 4
    default_preset: str = "standard"
    rules_class: str = "QuartetRules"
    package: str = "tests.games.quartet"
    replay_format: str = "quartet-replay"
    has_boards: bool = False
    check_preset: str = "short"

    # --- a game in play ----------------------------------------------------------------------
    def new_state(self, rules: Any, *, seed: str, game: int) -> State:
        from tests.games.quartet.game import QuartetState, set_deals

        dealer, deals = set_deals(seed, game // 4)
        return QuartetState(rules, dealer=dealer, deals=deals.source(), game=game)

    # --- players and matches -----------------------------------------------------------------
    def builtin_players(self) -> dict[str, tuple[type[Player], str]]:
        from engine.builtin import RandomPlayer
        from tests.games.quartet.players import QuartetGreedyPlayer

        return {"random": (RandomPlayer, "1"), "greedy": (QuartetGreedyPlayer, "1")}

    # No person's table (no person module, no seat labels): the site offers none.
    def winner_of_seat(self, seat: int) -> int:
        return seat  # each seat plays for itself


GAME = Quartet()
