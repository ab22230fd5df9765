"""The two kinds of failure a match meets: a bot's fault (a result), the machinery's (an error)."""

from __future__ import annotations

FAULT_REASONS = ("timeout", "illegal", "protocol", "crash", "resource")
# What ends a game in a replay: a bot's fault, or a person at a human seat resigning.
FORFEIT_REASONS = (*FAULT_REASONS, "resign")


class BotFault(Exception):
    """A bot broke the protocol or the rules: its team forfeits. Never raised for our own bugs."""

    def __init__(self, reason: str, detail: str, message_id: int | None = None) -> None:
        if reason not in FAULT_REASONS:
            raise ValueError(f"unknown fault reason {reason!r}")
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.message_id = message_id


class InfrastructureError(Exception):
    """The sandbox or the host failed (bubblewrap missing, out of processes): retry, never score."""
