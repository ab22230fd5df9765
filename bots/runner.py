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
    return RecordingFactory(inner, name=version.bot.name, version=str(version.number),
                            paths=_program_paths(spec, filename=version.filename))


# Where the sandbox shows a program's folder (engine.sandbox.scripts.BOT_DIR).
SANDBOX_DIR = "/bot"


def _program_paths(spec: str, *, filename: str) -> dict[str, str]:
    """Its tracebacks' paths as the author knows them (issue 43): a lone uploaded file by the
    name it was uploaded as (mybot.py, not /bot/bot.py), a zip's files by their names in it."""
    if spec.startswith("builtin:"):
        return {}
    paths = {}
    for folder in (SANDBOX_DIR, spec):
        if filename.endswith(".py"):
            paths[f'"{folder}/bot.py"'] = f'"{filename}"'
        paths[f'"{folder}/'] = '"'
    return paths


def check_time_control() -> TimeControl:
    return TimeControl(
        move_ms=settings.KAISER_CHECK_MOVE_MS,
        bank_ms=settings.KAISER_CHECK_BANK_MS,
        startup_ms=settings.KAISER_CHECK_STARTUP_MS,
    )


class RecordingFactory:
    """Wraps a factory and keeps the players it makes, to read their stderr after the match."""

    def __init__(self, inner: PlayerFactory, *, name: str, version: str,
                 paths: dict[str, str] | None = None) -> None:
        self.inner = inner
        self.paths = paths or {}
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
        """Its seats' standard error, each once: seats that wrote the same (the same program
        failing alike) show it once, with no heading; else each under its seat's heading."""
        texts = [self._named(player.stderr_text()) for player in self.players]
        written = [(slot, text) for slot, text in enumerate(texts) if text]
        if len({text for _, text in written}) <= 1:
            joined = written[0][1] if written else ""
        else:
            joined = "\n".join(f"--- its seat {slot + 1} ---\n{text}" for slot, text in written)
        return joined if len(joined) <= limit else joined[:limit] + "\n(the rest cut off)"

    def _named(self, text: str) -> str:
        for path, name in self.paths.items():
            text = text.replace(path, name)
        return text
