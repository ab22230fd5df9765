"""Kaiser as the runtime sees it (engine.games.Game): the registry's first game, so the one a
bot plays when its `ready` names none. The game's modules are imported when it is asked for
something, not when the registry is read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.games import PackagedGame
from engine.kaiser import KAISER

if TYPE_CHECKING:
    from engine.games import State
    from engine.players import Player, PlayerFactory, TimeControl


class Kaiser(PackagedGame):
    name: str = KAISER
    title: str = "Kaiser"
    about: str = "the Canadian card game Kaiser: four seats, two teams of two, bids for points"
    match_about: str = "duplicate: each pair of games deals the same cards, the seats moved"
    rules_page: str = "rules"
    seats: int = 4
    sides: tuple[str, ...] = ("A", "B")
    games_per_set: int = 2
    default_preset: str = "official"
    rules_class: str = "Rules"
    package: str = "engine.kaiser"
    wire_module: str = "wire"
    replay_format: str = "kaiser-replay"
    has_boards: bool = True  # the two tables of each duplicate pair, board by board
    browser_scripts: tuple[str, ...] = ("js/replay.js", "js/board.js")
    check_preset: str = "official"
    home_ladder: dict[str, Any] = {  # noqa: RUF012 (read only)
        "slug": "main", "name": "Main ladder", "rules": "official", "games_per_match": 2,
        "description": "The official rules, duplicate matches of two games."}
    house_bots: dict[str, str] = {"random": "builtin:random",  # noqa: RUF012
                                  "greedy": "builtin:greedy"}
    house_anchor: str = "greedy"  # a new bot starts level with greedy

    # --- a game in play ----------------------------------------------------------------------
    def new_state(self, rules: Any, *, seed: str, game: int) -> State:
        from engine.kaiser.game import GameState, pair_deals

        dealer, deals = pair_deals(rules, seed, game // 2)
        return GameState(rules, dealer=dealer, deals=deals, game=game)

    # --- the bot protocol --------------------------------------------------------------------
    def hello(self, *, seat: int, rules: Any, games: int, game: int,
              time: TimeControl) -> dict[str, Any]:
        from engine.wire import PROTOCOL_VERSION

        return {"type": "hello", "id": 0, "protocol": PROTOCOL_VERSION, "seat": seat,
                "team": seat % 2, "rules": rules.to_dict(),
                "match": {"games": games, "game": game}, "time": time.to_dict()}

    # --- players and matches -----------------------------------------------------------------
    def builtin_players(self) -> dict[str, tuple[type[Player], str]]:
        """name -> (class, version). Imported lazily: the stronger players are bigger modules."""
        from engine.builtin import RandomPlayer
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

    def run_match(self, players: Sequence[PlayerFactory], *, games: int, seed: str,
                  rules: Any, time: TimeControl, on_progress: Any = None) -> dict[str, Any]:
        from engine.kaiser.match import run_match

        self.players_check(players)
        return run_match(players[0], players[1], games=games, seed=seed, rules=rules,
                         time=time, on_progress=on_progress)

    # --- replays -----------------------------------------------------------------------------
    def match_tiebreak(self, replay: dict[str, Any]) -> dict[str, float]:
        """Each side's game points over the match's games (whichever team it sat as)."""
        points = dict.fromkeys(self.sides, 0.0)
        for game in replay.get("games", []):
            teams = ("A", "B") if game["seats"][0] == "A" else ("B", "A")
            for side, score in zip(teams, game["result"]["score"], strict=True):
                points[side] += score
        return points

    def deal_file(self, replay: dict[str, Any], game: int, index: int, *,
                  games: int | None = None) -> dict[str, Any]:
        from engine.kaiser.dealfile import deal_file

        return deal_file(replay, game, index, games=games)

    def deal_file_load(self, text: str) -> Any:
        from engine.kaiser.dealfile import deal_file_load

        return deal_file_load(text)

    def deal_play(self, data: Any, players: Sequence[PlayerFactory], *, time: TimeControl,
                  names: Sequence[str]) -> str:
        from engine.kaiser.dealfile import deal_play
        from engine.kaiser.show import deal_summary

        played = deal_play(data, players[0], players[1], time=time)
        return deal_summary(data, played, dict(zip(self.sides, names, strict=True)))

    # --- a person at the table (engine.kaiser.person) ----------------------------------------
    person_seat_labels: tuple[str, ...] = ("West (opponent)", "North (your partner)",
                                           "East (opponent)")
    person_hidden: frozenset[str] = frozenset({"discard"})  # a bot's discards to the kitty

    def winner_of_seat(self, seat: int) -> int:
        return seat % 2  # the team: North (2) with the person (0), West and East (1, 3)



GAME = Kaiser()
