"""Players: what sits at a seat. Built-in players run in-process; bot programs run sandboxed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-seat clock, as in the protocol's hello, in milliseconds of counted time: the seat's
    CPU time, with a wall-clock backstop (engine.clock).

    strict_ms (0: off) is the strict time control (engine.slots; docs/protocol.md, "Strict
    time"): every decision of the match is a slot of strict_ms of wall time, its message sent
    at the slot's start whoever took how long before, its reply due strict_reply_ms into it."""

    move_ms: int = 1000
    bank_ms: int = 10000
    startup_ms: int = 5000
    strict_ms: int = 0

    @property
    def strict(self) -> bool:
        return self.strict_ms > 0

    @property
    def strict_reply_ms(self) -> int:
        """When a reply is due under strict time: the slot less the engine's margin to read
        it and write the next message before the slot ends (a twentieth, at least 2 ms)."""
        return self.strict_ms - max(STRICT_MARGIN_MS, self.strict_ms // 20)

    def to_dict(self) -> dict[str, int]:
        out = {"move_ms": self.move_ms, "bank_ms": self.bank_ms, "startup_ms": self.startup_ms}
        if self.strict:  # only then: the protocol's first hello had three keys
            out["strict_ms"] = self.strict_ms
            out["strict_reply_ms"] = self.strict_reply_ms
        return out


STRICT_MARGIN_MS = 2
STRICT_LIMITS_MS = (10, 60000)  # what an organiser, the API and the runner may choose


def strict_ms_error(value: int) -> str | None:
    """Why `value` is no strict_ms (0 turns strict time off), or None."""
    low, high = STRICT_LIMITS_MS
    if value == 0 or low <= value <= high:
        return None
    return f"strict time is 0 (off) or {low} to {high} ms a decision, not {value}"


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

    def boot_wait(self) -> None:
        """Until its sandbox has booted, if it has one (strict time: a table made ahead boots
        before the first slot, not on the seats' time)."""

    def start(
        self, *, seat: int, rules: Any, games: int, time: TimeControl, seed: str
    ) -> None:
        """hello/ready. `seat` is the seat this player holds in its game."""

    def begin_game(self, game: int) -> None:
        """A new game starts: a full time bank."""

    def use_slots(self, slots: Any) -> None:
        """Strict time (engine.slots.Slots): each decision waits for its slot. An in-process
        player's act() waits before it decides; a bot program's seat writes its message at
        the slot's start (engine.botproc)."""
        from engine.slots import slotted

        self.act = slotted(self.act, slots)  # type: ignore[method-assign]

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

    def decision_times(self) -> list[Any]:
        """engine.clock.DecisionTime of each of the seat's decisions (bot programs only)."""
        return []


class PlayerFactory(Protocol):
    """Makes the Player for one of a side's seats in one game (`slot`: which of the side's
    seats, from 0); `name` and `version` go in the replay."""

    name: str
    version: str

    def __call__(self, slot: int) -> Player: ...
