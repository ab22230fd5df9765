"""Duel as the runtime sees it (engine.games.Game): a game of the tests, registered by them
(GAMES.register("tests.games.duel.plugin")) or named in KAISER_GAME_PLUGINS."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.games import PackagedGame
from tests.games.duel import DUEL

if TYPE_CHECKING:
    from engine.games import State
    from engine.players import Player, PlayerFactory, TimeControl


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

    def player_seed(self, seed: str, seat: int, game: int) -> str:
        from tests.games.duel.match import player_seed, seat_sides

        return player_seed(seed, seat_sides(game)[seat], 0, game)

    # --- the bot protocol --------------------------------------------------------------------
    def hello(self, *, seat: int, rules: Any, games: int, game: int,
              time: TimeControl) -> dict[str, Any]:
        from engine.wire import PROTOCOL_VERSION

        return {"type": "hello", "id": 0, "protocol": PROTOCOL_VERSION, "game": self.name,
                "seat": seat, "rules": rules.to_dict(),
                "match": {"games": games, "game": game}, "time": time.to_dict()}

    # --- players and matches -----------------------------------------------------------------
    def builtin_players(self) -> dict[str, tuple[type[Player], str]]:
        from engine.builtin import RandomPlayer
        from tests.games.duel.players import DuelGreedyPlayer

        return {"random": (RandomPlayer, "1"), "greedy": (DuelGreedyPlayer, "1")}

    def run_match(self, players: Sequence[PlayerFactory], *, games: int, seed: str,
                  rules: Any, time: TimeControl, on_progress: Any = None) -> dict[str, Any]:
        from tests.games.duel.match import run_match

        if len(players) != 2:
            raise ValueError(f"a Duel match has two players (A and B), not {len(players)}")
        return run_match(list(players), games=games, seed=seed, rules=rules, time=time,
                         on_progress=on_progress)

    # --- replays -----------------------------------------------------------------------------
    def deal_file(self, replay: dict[str, Any], game: int, index: int, *,
                  games: int | None = None) -> dict[str, Any]:
        raise ValueError(f"{self.title} has no deal files")

    def deal_file_load(self, text: str) -> Any:
        raise ValueError(f"{self.title} has no deal files")

    def deal_play(self, data: Any, players: Sequence[PlayerFactory], *, time: TimeControl,
                  names: Sequence[str]) -> str:
        raise ValueError(f"{self.title} has no deal files")

    # --- a person at the table (tests.games.duel.person) -------------------------------------
    person_seat_labels: tuple[str, ...] = ("your opponent",)
    person_hidden: frozenset[str] = frozenset()  # every card played is seen

    def winner_of_seat(self, seat: int) -> int:
        return seat  # each seat plays for itself



GAME = Duel()
