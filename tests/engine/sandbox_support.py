"""Running bot programs in tests: fast clocks, a factory that remembers its players, and a check
that no process of a sandbox survives its match."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from engine.botproc import ProgramPlayer, program_player_factory
from engine.builtin import resolve_player
from engine.kaiser.match import run_match
from engine.players import Player, PlayerFactory, TimeControl
from engine.sandbox import SandboxLimits
from engine.sandbox.pool import POOLS

HOSTILE = Path(__file__).parent / "hostile"
EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"
# FAST: for bots expected to time out (the test waits for the clock). RELAXED: for bots that
# behave, so that a loaded test machine never turns a slow answer into a fault.
FAST = TimeControl(move_ms=200, bank_ms=300, startup_ms=2000)
RELAXED = TimeControl(move_ms=2000, bank_ms=10000, startup_ms=10000)


class Recording:
    """Wraps a factory and keeps every player it made, to inspect them after the match."""

    def __init__(self, factory: PlayerFactory) -> None:
        self.factory = factory
        self.name = factory.name
        self.version = factory.version
        self.players: list[Player] = []

    def __call__(self, slot: int) -> Player:
        player = self.factory(slot)
        self.players.append(player)
        return player

    @property
    def namespaces(self) -> list[str]:
        found = [p.pid_namespace for p in self.players if isinstance(p, ProgramPlayer)]
        assert all(found), "a sandboxed player never reported its pid namespace"
        return [ns for ns in found if ns]


def program(path: str | Path, *, time: TimeControl = FAST,
            limits: SandboxLimits | None = None, unsandboxed: bool = False) -> Recording:
    return Recording(program_player_factory(path, time=time, limits=limits,
                                            unsandboxed=unsandboxed))


def play(a: PlayerFactory, b: PlayerFactory | str = "builtin:random", *,
         time: TimeControl = RELAXED, games: int = 2, seed: str = "7") -> dict[str, Any]:
    opponent = resolve_player(b) if isinstance(b, str) else b
    return run_match(a, opponent, games=games, seed=seed, time=time)


def processes_in(namespaces: list[str]) -> list[str]:
    """Live (not zombie) processes in any of these pid namespaces (or, for a gVisor seat,
    'cgroup:FOLDER', in that cgroup), as 'pid state cmdline'."""
    alive = []
    cgroups = {ns.rsplit("/", 1)[-1] for ns in namespaces if ns.startswith("cgroup:")}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            namespace = os.readlink(f"/proc/{entry}/ns/pid")
            if cgroups and _in_cgroups(entry, cgroups):
                namespace = namespaces[0] if namespaces else namespace
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue  # gone while we looked
        if not cgroups and command.startswith(b"runsc"):
            # gVisor's own processes never belong to a seat on the host's kernel: one found
            # here is another test's gVisor seat on its way out, whose pid namespace number
            # happens to be one that a seat of ours had (the kernel reuses them).
            continue
        if namespace in namespaces and state != "Z":
            alive.append(f"{entry} {state} {command.decode(errors='replace')}")
    return alive


def _in_cgroups(pid: str, folders: set[str]) -> bool:
    """Is the process in one of these cgroups (by name: kaiser-PID-N is unique)?"""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        if line.rsplit("/", 1)[-1] in folders:
            return True
    return False


def leftover_cgroups() -> list[str]:
    """This process's per-seat cgroups and /tmp mounts still on the host (every one is
    removed at close), but those of the seats its pool holds booted for the next match."""
    with contextlib.ExitStack() as pauses:
        held = set().union(*(pauses.enter_context(each.paused()) for each in list(POOLS)))
        return [path for path in _cgroups_and_tmps() if path not in held]


def _cgroups_and_tmps() -> list[str]:
    prefix = f"kaiser-{os.getpid()}-"
    left = []
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        for controller in ("memory", "pids", "cpu"):
            if controller in names.split(","):
                base = Path("/sys/fs/cgroup") / controller / path.lstrip("/")
                if base.is_dir():
                    left += [str(p) for p in base.iterdir() if p.name.startswith(prefix)]
    tmp = Path("/run/kaiser-arena/tmp")  # the seats' own /tmp mounts
    if tmp.is_dir():
        left += [str(p) for p in tmp.iterdir() if p.name.startswith(prefix)]
    return left
