"""From a BotVersion row to an engine PlayerFactory: the one place the site hands a bot to the
engine (the upload check here, and the tournaments app's matches)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from bots.models import BotVersion
from bots.programs import program_materialize
from engine.clock import DecisionTime
from engine.players import Player, PlayerFactory, TimeControl


def sandbox_options() -> dict[str, Any]:
    """The sandbox settings, as engine.builtin.resolve_player passes them to the sandbox."""
    from engine.sandbox import SandboxLimits

    return {
        "limits": SandboxLimits(**settings.KAISER_SANDBOX),
        "unsandboxed": settings.KAISER_UNSANDBOXED,
    }


def bot_version_spec(*, version: BotVersion) -> str:
    """What engine.builtin.resolve_player runs: `builtin:NAME` or the unpacked program folder."""
    if version.kind == BotVersion.Kind.BUILTIN:
        return version.builtin
    program = version.program
    if program is None:
        raise ValueError(f"version {version.pk} has no program")
    folder = program_materialize(
        sha256=program.sha256, filename=version.filename, content=bytes(program.content)
    )
    return str(folder)


def bot_version_player(*, version: BotVersion, time: TimeControl) -> RecordingFactory:
    """The version's factory, named after the bot (the replay shows "name", "version"): a
    built-in player of the bot's game, or its program in the sandbox."""
    from engine.builtin import resolve_player

    spec = bot_version_spec(version=version)
    game = version.bot.game
    if spec.startswith("builtin:"):
        inner = resolve_player(spec, game=game, time=time)
    else:
        inner = resolve_player(spec, game=game, time=time, **sandbox_options())
    return RecordingFactory(inner, name=version.bot.name, version=str(version.number))


def check_time_control() -> TimeControl:
    return TimeControl(
        move_ms=settings.KAISER_CHECK_MOVE_MS,
        bank_ms=settings.KAISER_CHECK_BANK_MS,
        startup_ms=settings.KAISER_CHECK_STARTUP_MS,
    )


class RecordingFactory:
    """Wraps a factory and keeps the players it makes, to read their stderr after the match."""

    def __init__(self, inner: PlayerFactory, *, name: str, version: str) -> None:
        self.inner = inner
        self.name = name
        self.version = version
        self.players: list[Player] = []

    def __call__(self, slot: int) -> Player:
        player = self.inner(slot)
        self.players.append(player)
        return player

    def decision_ms(self) -> list[int]:
        """The counted (CPU) time of every decision of its seats, in ms (bot programs; empty
        for built-ins)."""
        return [ms for player in self.players for ms in player.decision_ms()]

    def decision_times(self) -> list[DecisionTime]:
        """Each decision of its seats (bot programs; empty for built-ins), in the engine's
        order: a side's seats take turns, so their decisions sorted by when each message went
        out are the side's decisions as the replay lists them (engine.fairplay)."""
        merged = [t for player in self.players for t in player.decision_times()]
        return sorted(merged, key=lambda t: t.sent)

    def stderr_text(self, *, limit: int) -> str:
        parts = []
        for slot, player in enumerate(self.players):
            text = player.stderr_text()
            if text:
                parts.append(f"--- seat slot {slot} ---\n{text}")
        joined = "\n".join(parts)
        return joined if len(joined) <= limit else joined[:limit] + "\n[stderr truncated]"
