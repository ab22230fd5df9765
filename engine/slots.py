"""The strict time control's schedule (docs/protocol.md, "Strict time"; issue 41).

A side's two seats are one program: its copies gain by telling each other their hands, and
the one way left to them is time. Under the normal control a seat that wakes reads how long
the seats before it took, its partner among them. Under strict time every decision of a match
is a slot of `strict_ms` of wall time: its message goes out at the slot's start, and the next
decision's slot starts when this one ends, however soon the reply came. So every message
reaches its seat at a moment fixed by public information alone: the first decision's start,
the decision's place in the match and strict_ms (and the host's own delays, which no seat
chooses). A reply later than `strict_reply_ms` into its slot is a timeout.

Notifications (deal_end, game_end) go out with the seat's next message, not when the deal
ends; a game ends when its last slot does, and the next table starts then.

Architecture invariant: under strict time, no message's send time depends on when any seat
replied (tests/engine/test_strict_time.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # engine.players imports this module when a player uses slots
    from engine.players import TimeControl


class Slots:
    """One match's schedule: the start of the next decision's slot."""

    def __init__(self, time_control: TimeControl) -> None:
        self.period_s = time_control.strict_ms / 1000
        self.reply_s = time_control.strict_reply_ms / 1000
        self.next: float | None = None  # the next slot's start (monotonic s); None: at once
        self.count = 0  # slots begun
        self.late_s = 0.0  # how far the engine began slots after their time, in all

    def begin(self) -> float:
        """Wait for the next slot and start it: returns its start (the moment to write the
        message; its reply is due at start + reply_s)."""
        now = time.monotonic()
        if self.next is not None:
            if now < self.next:
                sleep_until(self.next)
                now = time.monotonic()
            self.late_s += now - self.next
        self.next = now + self.period_s
        self.count += 1
        return now

    def finish(self) -> None:
        """Wait until the slot begun last is over (a game's end: the next table starts when
        its last decision's slot ends, not when its reply came)."""
        if self.next is not None and time.monotonic() < self.next:
            sleep_until(self.next)


def sleep_until(moment: float) -> None:
    """Sleep to `moment` (monotonic s). time.sleep may wake a little early on some
    systems: sleep again for what is left."""
    while (left := moment - time.monotonic()) > 0:
        time.sleep(left)


def slotted(act: Callable[[Any, Any], Any], slots: Slots) -> Callable[[Any, Any], Any]:
    """An in-process player's act under strict time: it waits for its slot like a bot."""

    def act_in_slot(state: Any, legal: Any) -> Any:
        slots.begin()
        return act(state, legal)

    return act_in_slot
