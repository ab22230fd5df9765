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

A table's end leaves nothing on the next table's clock (issue 41): its seats are told
match_end and left to exit (EXIT_GRACE_S) in a thread of their own, while the next table is
let in at once. Its start is the moment the last table's game ended, whenever the last
table's seats exit; under strict time (engine.slots) that moment is the end of the game's
last slot, fixed by public information alone.

Architecture invariant: this module names no game; a game gives its seating (`seat_sides`)
and its players' seeds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from engine.faults import BotFault
from engine.players import Player, PlayerFactory, TimeControl
from engine.slots import Slots

# True: the next table waits until every seat of the last one has exited (the design before
# issue 41, whose exit times game 0's seats could choose and game 1's read). Only for the
# positive control of tests/engine/test_table_boundary.py.
WAIT_FOR_EXITS = False

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
        self.slots = Slots(time) if time.strict else None  # the match's, across its tables
        self._leaving: list[threading.Thread] = []  # last tables' seats, exiting

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
            if self._leaving and any(p.start_error for p in self.current):
                # No room while the last table's seats still leave (its /tmp slots, with
                # room for one table only): they are waited for, and these made again.
                _close_all(self.current)
                self._join_leaving()
                self.current = self._make(game)
        sides = self.seat_sides(game)
        for player in self.current:  # their programs start side by side, hello one by one
            if self.slots is not None:
                player.use_slots(self.slots)
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
            if self.slots is not None:
                # Strict time: booting beside the seat on move would slow it within its slot;
                # they boot before the first slot instead.
                for player in self._next[1]:
                    player.boot_wait()
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
        """match_end to this table's players, under strict time once its last slot is over.
        They exit (or are ended after EXIT_GRACE_S) in a thread of their own: the next table
        does not wait for them, so the moment it starts says nothing of when they left."""
        current, self.current = self.current, []
        if not current:
            return
        if self.slots is not None:
            self.slots.finish()
        for player in current:  # every seat told first, here: they exit side by side
            player.end()
        if WAIT_FOR_EXITS:
            _close_all(current)
            return
        leaving = threading.Thread(target=_close_all, args=(current,), daemon=True,
                                   name="table-leaving")
        leaving.start()
        self._leaving.append(leaving)

    def close_all(self) -> None:
        """The match is over: this table, the one made for the next game, and every seat
        still leaving: nothing of the match runs once this returns."""
        current, self.current = self.current, []
        _close_all(current)
        if self._next is not None:
            _close_all(self._next[1])
            self._next = None
        self._join_leaving()

    def _join_leaving(self) -> None:
        for leaving in self._leaving:
            leaving.join()
        self._leaving = []


def side_slot(sides: list[str], seat: int) -> int:
    """Which of its side's seats this is (0 or 1 with two seats a side; one seat a side: 0)."""
    return sides[:seat].count(sides[seat])


def _close_all(players: list[Player]) -> None:
    for player in players:  # every seat told first: they exit side by side
        player.end()
    for player in players:
        player.close()  # never raises (Player.close)
