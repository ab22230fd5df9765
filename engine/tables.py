"""The tables of a match: fresh players for every game, so that no table remembers another.

A match plays sets of games over the same deals (pairs, threes: the game's games_per_set),
the players moved between seats. If one process played every game of a set, a bot that kept
what it saw (every hand is shown at deal_end, and the tricks rebuild it anyway) would play
the set's later games with open cards. So every game is played by players made for it alone:
for a bot program, new sandboxes with a new copy of the program and an empty /tmp, told in
hello which one game they play (engine.botproc); a built-in player, a new object.

The tables of a match are played one after the other, in one thread: only the seat on move
runs (engine.botproc's freezer works on one table at a time), and the seats' CPU clocks
stay fair. The next table's players are made when a table has started, so that their
sandboxes boot while this table plays; they join the table (and its freezer) only when their
own game starts. Nothing reaches them before then: they have seen no message.

Architecture invariant: this module names no game; a game gives its seating (`seat_sides`)
and its players' seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.faults import BotFault
from engine.players import Player, PlayerFactory, TimeControl

SeatSides = Callable[[int], list[str]]
SeedOf = Callable[[str, int, int], str]  # (side, slot, game) -> the player's seed


class StartFault(Exception):
    """A player of a table failed its start (hello): the match records the forfeit."""

    def __init__(self, seat: int, side: str, fault: BotFault) -> None:
        super().__init__(str(fault))
        self.seat = seat
        self.side = side
        self.fault = fault


class Tables:
    """Opens each game's table (new players, started in seat order) and closes it again."""

    def __init__(self, factories: Mapping[str, PlayerFactory], *, seat_sides: SeatSides,
                 seed_of: SeedOf, games: int, rules: Any, time: TimeControl,
                 ahead: bool = True) -> None:
        self.factories = factories
        self.seat_sides = seat_sides
        self.seed_of = seed_of
        self.games = games
        self.rules = rules
        self.time = time
        self.ahead = ahead  # make the next game's table while this one plays
        self.current: list[Player] = []
        self._next: tuple[int, list[Player]] | None = None

    def open(self, game: int) -> list[Player]:
        """The players of `game` in seat order, each started (hello answered). Raises
        StartFault; every player made so far is closed by close()."""
        self.close()
        made_early = self._next[1] if self._next is not None and self._next[0] == game else []
        self._next = None
        if made_early and not any(p.start_error for p in made_early):
            self.current = made_early
        else:
            # Made while the last table played, they may have found no room (a worker's
            # /tmp slots, say): they are made again now that the last table has left.
            _close_all(made_early)
            self.current = self._make(game)
        sides = self.seat_sides(game)
        for player in self.current:  # their programs start side by side, hello one by one
            player.let_in(self.time)
        for seat, player in enumerate(self.current):
            side = sides[seat]
            try:
                player.start(seat=seat, rules=self.rules, games=self.games, time=self.time,
                             seed=self.seed_of(side, side_slot(sides, seat), game))
            except BotFault as fault:
                raise StartFault(seat, side, fault) from None
        for player in self.current:
            player.begin_game(game)
        if self.ahead and game + 1 < self.games:
            self._next = (game + 1, self._make(game + 1))  # they boot while this table plays
        return self.current

    def _make(self, game: int) -> list[Player]:
        sides = self.seat_sides(game)
        made: list[Player] = []
        try:
            for seat, side in enumerate(sides):  # one at a time: close() reaches every one made
                player = self.factories[side](side_slot(sides, seat))
                player.game, player.seat = game, seat
                made.append(player)
        except BaseException:
            _close_all(made)
            raise
        return made

    def close(self) -> None:
        """match_end to this table's players: they stop, leaving nothing running."""
        current, self.current = self.current, []
        _close_all(current)

    def close_all(self) -> None:
        """The match is over: this table and the one made for the next game."""
        self.close()
        if self._next is not None:
            _close_all(self._next[1])
            self._next = None


def side_slot(sides: list[str], seat: int) -> int:
    """Which of its side's seats this is (0 or 1 with two seats a side; one seat a side: 0)."""
    return sides[:seat].count(sides[seat])


def _close_all(players: list[Player]) -> None:
    for player in players:  # every seat told first: they exit side by side
        player.end()
    for player in players:
        player.close()  # never raises (Player.close)
