"""Players: what sits at a seat. Built-in players run in-process; bot programs run sandboxed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-seat clock, as in the protocol's hello, in milliseconds of counted time: the seat's
    CPU time, with a wall-clock backstop (engine.clock)."""

    move_ms: int = 1000
    bank_ms: int = 10000
    startup_ms: int = 5000

    def to_dict(self) -> dict[str, int]:
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms, "startup_ms": self.startup_ms}


class Player:
    """One seat's decision maker for one game of a match (one process for a bot program).

    Every game has players of its own (engine.tables): the runner sets `game` and `seat`, calls
    start() once, begin_game() before the game, act() for each decision, notify() with
    deal_end/game_end messages (only if wants_notifications), close() at the end of the game.
    act() and start() may raise BotFault; notify() must not raise (a player remembers a fault
    seen there and raises it from its next act()). close() must not raise and must leave no
    process behind.
    """

    trusted = False  # True: the runner skips re-checking actions (built-in players only)
    wants_notifications = False
    # False: act() makes no reference cycles, so the runner may pause the cyclic garbage
    # collector for the match (engine.runner.collector_paused). Built-in players only.
    makes_cycles = True
    # True: act() answers at once (microseconds: no search, no process), so a site showing
    # the moves to a person may show several of this player's moves together (play.services).
    instant = False
    game = 0  # the one game of the match this player plays (engine.tables sets it)
    seat = 0  # its seat in that game

    @property
    def start_error(self) -> Exception | None:
        """Why this player cannot start (a sandbox that could not be made), known before
        start() would raise it: engine.tables then makes the table again."""
        return None

    def let_in(self, time: TimeControl) -> None:
        """Before start(), for every seat of a table at once: a bot program's process may
        begin to run (it was made early, and waits at its sandbox's gate until now)."""

    def start(
        self, *, seat: int, rules: Any, games: int, time: TimeControl, seed: str
    ) -> None:
        """hello/ready. `seat` is the seat this player holds in its game."""

    def begin_game(self, game: int) -> None:
        """A new game starts: a full time bank."""

    def act(self, state: Any, legal: list[Any]) -> Any:
        raise NotImplementedError

    def notify(self, message: dict[str, Any]) -> None:
        """A protocol notification (deal_end, game_end)."""

    def end(self) -> None:
        """match_end, without waiting: the runner tells every seat of a table before it
        close()s them one by one (a bot program exits meanwhile)."""

    def close(self) -> None:
        """match_end (if end() has not said it): stop, leaving nothing running."""

    def stderr_text(self) -> str:
        """The seat's captured standard error (bot programs only)."""
        return ""

    def decision_ms(self) -> list[int]:
        """The counted (CPU) time of each of the seat's decisions, in ms (bot programs only)."""
        return []


class PlayerFactory(Protocol):
    """Makes the Player for one of a side's seats in one game (`slot`: which of the side's
    seats, from 0); `name` and `version` go in the replay."""

    name: str
    version: str

    def __call__(self, slot: int) -> Player: ...
