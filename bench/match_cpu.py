"""Where a match's CPU goes (issue 44). Prints figures; asserts nothing.

    .venv/bin/python bench/match_cpu.py [--matches N] [--designs "plain pipe,gVisor a seat"]

Plays N two-game matches of two trivial Python bots (bench/trivial_bot.py) on each backend
(bench/sandbox_speed.py's designs: the plain pipe, bubblewrap on the host's kernel, gVisor a
seat), in turns so that every backend sees the same load, and splits the CPU of the whole
worker (the engine's process and every process of every seat) into:

- boot, a seat: from the seat's spawn to its zygote waiting at the gate (engine.sandbox.zygote),
  by process: the launcher (runsc run with its supervising shell; bwrap on the host's kernel),
  the gofer, the Sentry, the interpreter (the zygote's python: under gVisor the Sentry's ptrace
  stubs, which run its code), processes that ended before the count (the cgroup's total less
  those alive), and the engine's own (making the cgroup, the bundle, spawning);
- the program's start, a seat: from the gate to its answer to hello (the bot's script run by
  the zygote's interpreter), by the same processes;
- decisions, each: the engine (in act(): of it the freezer's writes, the clock's reads of the
  seat's cgroup and of its kernel's processes, and the rest: messages, pipes, checks), the
  Sentry, the bot (stubs or its process), the launcher and gofer;
- teardown, a seat: the engine's (killing the seat, removing its cgroups, folders and files).

Each process's CPU is read from its CPU-time clock (all threads, ns), the seat's total from its
cgroup's cpuacct.usage. The load average is printed beside each backend (start-end). The seats
are booted when asked (KAISER_SANDBOX_POOL=0), so that every seat booted is one a match used:
a pool boots the same seats ahead, at the same cost, in another thread.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.sandbox_speed import CLOCK, DESIGNS, TRIVIAL, Loads, design  # noqa: E402
from engine import botproc, clock  # noqa: E402
from engine.botproc import program_player_factory  # noqa: E402
from engine.clock import _process_cpu_ns  # noqa: E402
from engine.kaiser.match import run_match  # noqa: E402
from engine.sandbox import cgroups, gvisor  # noqa: E402
from engine.sandbox.cgroups import _parent_pid  # noqa: E402
from engine.sandbox.seat import SandboxProcess  # noqa: E402

DEFAULT_DESIGNS = ["plain pipe", "host kernel (bwrap)", "gVisor a seat"]
PROCESSES = ["launcher", "gofer", "Sentry", "interpreter", "ended", "engine"]
PHASES = ["boot", "start", "decisions", "teardown"]


def _argv0(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().split(b"\0", 1)[0]
    except OSError:
        return b""


def _tree(root: int) -> set[int]:
    """root and its descendants, from /proc (a seat with no cgroup: the plain pipe)."""
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        for children in Path(f"/proc/{pid}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo += [int(child) for child in children.read_text().split()]
    return found


def classify(pids: set[int]) -> dict[int, str]:
    """Each process of a seat by what it is: the Sentry is the first runsc-sandbox of its
    line; its descendants (forked from it, under the same name) are the stubs that run the
    bot's code; runsc's other processes and the shells and setpriv above them are the
    launcher; bwrap's are the launcher on the host's kernel; the rest is the interpreter."""
    names = {pid: _argv0(pid) for pid in pids}
    parents = {pid: _parent_pid(pid) for pid in pids}
    sentries = {pid for pid, name in names.items()
                if name == b"runsc-sandbox" and names.get(parents[pid]) != b"runsc-sandbox"}

    def below_sentry(pid: int) -> bool:
        seen = 0
        while pid in parents and seen < 64:
            pid, seen = parents[pid], seen + 1
            if pid in sentries:
                return True
        return False

    kinds = {}
    for pid, name in names.items():
        base = os.path.basename(name)
        if pid in sentries:
            kinds[pid] = "Sentry"
        elif below_sentry(pid):
            kinds[pid] = "interpreter"  # a stub: the bot's (or the zygote's) code
        elif name == b"runsc-gofer":
            kinds[pid] = "gofer"
        elif base in (b"runsc", b"bash", b"setpriv", b"bwrap", b"sh"):
            kinds[pid] = "launcher"
        else:
            kinds[pid] = "interpreter"
    return kinds


Snap = tuple[dict[int, tuple[str, int]], int | None]  # each process's (kind, ns); the total


def seat_cpu(proc: SandboxProcess) -> Snap:
    """Each process of the seat alive now, its kind and its CPU so far (ns), and what the
    seat's cgroup counted in all (None without one)."""
    group = proc.backend.cgroup
    pids = (group.pids() if group is not None else set()) | _tree(proc.pid)
    each = {pid: (kind, _process_cpu_ns(pid)) for pid, kind in classify(pids).items()}
    return each, group.cpu_ns() if group is not None else None


def between(first: Snap, then: Snap) -> dict[str, int]:
    """ns of each kind of process from one snapshot to the next (a process's kind as it is
    then: a shell that became the interpreter is the interpreter), and 'ended': what the
    cgroup counted beyond them (processes that ended between the two)."""
    parts: dict[str, int] = defaultdict(int)
    for pid, (kind, ns) in then[0].items():
        parts[kind] += max(0, ns - first[0].get(pid, ("", 0))[1])
    if first[1] is not None and then[1] is not None:
        parts["ended"] = max(0, then[1] - first[1] - sum(parts.values()))
    return dict(parts)


class Split:
    """Hooks on the seat, the player and the cgroup that count each phase's CPU."""

    def __init__(self) -> None:
        self.snaps: dict[int, dict[str, Snap]] = defaultdict(dict)  # seat: its phases' ends
        self.engine: dict[str, int] = defaultdict(int)  # ns of the engine's threads
        self.decisions = 0
        self.seats = 0
        self.teardown_wall_ns = 0
        self.overhead_ns = 0  # the snapshots' own CPU: not the worker's
        self._local = threading.local()

    def _timed(self, key: str, call: Callable[..., Any]) -> Callable[..., Any]:
        engine = self.engine

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time_ns()
            try:
                return call(*args, **kwargs)
            finally:
                engine[key] += time.thread_time_ns() - started
        return timed

    def snap(self, proc: SandboxProcess, when: str) -> None:
        """The seat's processes now; the bench's own cost of reading them is kept apart."""
        started = time.thread_time_ns()
        self.snaps[_key(proc)][when] = seat_cpu(proc)
        self.overhead_ns += time.thread_time_ns() - started

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        split = self
        saved = {
            (SandboxProcess, "__init__"): SandboxProcess.__init__,
            (SandboxProcess, "wait_booted"): SandboxProcess.wait_booted,
            (SandboxProcess, "kill"): SandboxProcess.kill,
            (botproc.ProgramPlayer, "start"): botproc.ProgramPlayer.start,
            (botproc.ProgramPlayer, "act"): botproc.ProgramPlayer.act,
            (botproc.ProgramPlayer, "end"): botproc.ProgramPlayer.end,
            (clock.BotCpu, "__call__"): clock.BotCpu.__call__,
        }
        for cls in {cgroups._CgroupV1, cgroups._CgroupV2}:
            for name in ("freeze", "thaw", "cpu_ns"):
                saved[(cls, name)] = getattr(cls, name)
        init, booted, kill = (saved[(SandboxProcess, n)] for n in ("__init__", "wait_booted",
                                                                   "kill"))
        start, act, end = (saved[(botproc.ProgramPlayer, n)] for n in ("start", "act", "end"))

        def seat_init(proc: SandboxProcess, *args: Any, **kwargs: Any) -> None:
            started = time.thread_time_ns()
            init(proc, *args, **kwargs)
            split.engine["boot"] += time.thread_time_ns() - started
            split.seats += 1
            proc._split_key = split.seats  # type: ignore[attr-defined]
            split.snap(proc, "spawned")

        def seat_booted(proc: SandboxProcess, deadline: float) -> bool:
            was = proc._booted
            started = time.thread_time_ns()
            ok = booted(proc, deadline)
            split.engine["boot"] += time.thread_time_ns() - started
            if ok and not was:
                split.snap(proc, "booted")
            return ok

        def seat_kill(proc: SandboxProcess) -> None:
            if "killed" not in split.snaps[_key(proc)]:
                split.snap(proc, "killed")
            started, wall = time.thread_time_ns(), time.perf_counter_ns()
            kill(proc)
            split.engine["teardown"] += time.thread_time_ns() - started
            split.teardown_wall_ns += time.perf_counter_ns() - wall

        def player_start(player: Any, **kwargs: Any) -> None:
            started = time.thread_time_ns()
            start(player, **kwargs)
            split.engine["start"] += time.thread_time_ns() - started
            if player._proc is not None:
                split.snap(player._proc, "started")

        def player_end(player: Any) -> None:
            if player._proc is not None and not player._ending:
                split.snap(player._proc, "ending")
            started = time.thread_time_ns()
            end(player)
            split.engine["teardown"] += time.thread_time_ns() - started

        def player_act(player: Any, state: Any, legal: Any) -> Any:
            started = time.thread_time_ns()
            try:
                return act(player, state, legal)
            finally:
                split.engine["decisions"] += time.thread_time_ns() - started
                split.decisions += 1

        SandboxProcess.__init__ = seat_init  # type: ignore[method-assign]
        SandboxProcess.wait_booted = seat_booted  # type: ignore[method-assign]
        SandboxProcess.kill = seat_kill  # type: ignore[method-assign]
        botproc.ProgramPlayer.start = player_start  # type: ignore[method-assign]
        botproc.ProgramPlayer.act = player_act  # type: ignore[method-assign]
        botproc.ProgramPlayer.end = player_end  # type: ignore[method-assign]
        clock.BotCpu.__call__ = self._timed("clock", saved[(clock.BotCpu, "__call__")])
        for cls in {cgroups._CgroupV1, cgroups._CgroupV2}:
            cls.freeze = self._timed("freezer", saved[(cls, "freeze")])  # type: ignore
            cls.thaw = self._timed("freezer", saved[(cls, "thaw")])  # type: ignore
            cls.cpu_ns = self._timed("cgroup read", saved[(cls, "cpu_ns")])  # type: ignore
        try:
            yield
        finally:
            for (cls, name), value in saved.items():
                setattr(cls, name, value)

    def phase(self, phase: str) -> dict[str, float]:
        """ns of each kind of process in a phase, the mean over the seats that reached both of
        its ends (boot: spawned to booted; start: booted to started; decisions: started to
        the match's end sent; teardown: from then to the seat killed)."""
        ends = {"boot": ("spawned", "booted"), "start": ("booted", "started"),
                "decisions": ("started", "ending"), "teardown": ("ending", "killed")}[phase]
        seats = [s for s in self.snaps.values() if ends[0] in s and ends[1] in s]
        out: dict[str, float] = dict.fromkeys(PROCESSES[:-1], 0.0)
        for seat in seats:
            for kind, ns in between(seat[ends[0]], seat[ends[1]]).items():
                out[kind] += ns / len(seats)
        return out


def _key(proc: SandboxProcess) -> int:
    return getattr(proc, "_split_key", 0)


def one_design(name: str, matches: int, loads: Loads, totals: dict[str, Any]) -> None:
    split = Split()
    with design(name, pool="0") as unsandboxed, loads.during(name), split.installed():
        factory = program_player_factory(TRIVIAL, time=CLOCK, unsandboxed=unsandboxed)
        wall, cpu = time.perf_counter(), time.process_time()
        for seed in range(matches):
            replay = run_match(factory, factory, seed=f"cpu-{seed}", time=CLOCK)
            assert replay["result"]["forfeit"] is None, replay["result"]["forfeit"]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    old = totals.get(name)
    if old is not None:  # the second turn: add to the first
        for key, snaps in old["split"].snaps.items():
            split.snaps[key + 1_000_000] = snaps
        for key, value in old["split"].engine.items():
            split.engine[key] += value
        split.decisions += old["split"].decisions
        split.seats += old["split"].seats
        split.teardown_wall_ns += old["split"].teardown_wall_ns
        wall, cpu, matches = wall + old["wall"], cpu + old["cpu"], matches + old["matches"]
    totals[name] = {"split": split, "wall": wall, "cpu": cpu, "matches": matches}


def report(name: str, run: dict[str, Any], loads: Loads) -> None:
    split: Split = run["split"]
    matches, seats, decisions = run["matches"], max(1, split.seats), max(1, split.decisions)
    phases = {phase: split.phase(phase) for phase in PHASES}
    for phase in PHASES:  # the engine's own, a seat (its decisions' are said apart)
        phases[phase]["engine"] = split.engine[phase] / seats
    per_match = {phase: sum(phases[phase].values()) * seats / matches for phase in PHASES}
    engine_rest = run["cpu"] * 1e9 - split.overhead_ns - sum(split.engine[p] for p in PHASES)
    per_match["the engine's rest"] = max(0.0, engine_rest) / matches
    whole = sum(per_match.values())
    seats_cpu = sum(sum(v for k, v in phases[p].items() if k != "engine") for p in PHASES)
    print(f"{name} {loads(name)}: {matches} two-game matches of trivial bots, {split.seats} "
          f"seats, {split.decisions} decisions; the worker's CPU a match {whole / 1e9:.3f} s "
          f"(seats' processes {seats_cpu * seats / matches / 1e9:.3f} s), wall a match "
          f"{run['wall'] / matches:.3f} s, {matches / run['wall']:.2f} matches/s")
    print("  a match:       " + ", ".join(
        f"{k} {v / 1e6:.0f} ms ({v / whole:.0%})" for k, v in per_match.items()))
    print("  boot, a seat:  " + _parts(phases["boot"], 1e6, "ms"))
    print("  start, a seat: " + _parts(phases["start"], 1e6, "ms"))
    dec = {k: v * seats / decisions for k, v in phases["decisions"].items()}
    engine = dec.pop("engine")
    freezer, clock_ns = split.engine["freezer"] / decisions, split.engine["clock"] / decisions
    cgroup = split.engine["cgroup read"] / decisions
    print(f"  a decision:    engine {engine / 1e3:.0f} µs in act() (freezer writes "
          f"{freezer / 1e3:.0f}, clock reads {clock_ns / 1e3:.0f}: the seat's cgroup "
          f"{cgroup / 1e3:.0f}, its kernel's processes {(clock_ns - cgroup) / 1e3:.0f}; the "
          f"rest {(engine - freezer - clock_ns) / 1e3:.0f}), Sentry {dec['Sentry'] / 1e3:.0f}"
          f" µs, bot {dec['interpreter'] / 1e3:.0f} µs, launcher and gofer "
          f"{(dec['launcher'] + dec['gofer']) / 1e3:.0f} µs, ended "
          f"{dec['ended'] / 1e3:.0f} µs = {(engine + sum(dec.values())) / 1e3:.0f} µs")
    if dec["Sentry"]:
        seat = dec["Sentry"] + dec["interpreter"]
        print(f"  the Sentry's share of a trivial decision's seat CPU: {dec['Sentry'] / seat:.0%}")
    print("  teardown, a seat: " + _parts(phases["teardown"], 1e6, "ms") + ", wall "
          f"{split.teardown_wall_ns / seats / 1e6:.1f} ms")


def _parts(parts: dict[str, float], scale: float, unit: str) -> str:
    shown = [f"{k} {v / scale:.1f}" for k, v in parts.items() if round(v / scale, 1)]
    return ", ".join(shown) + f" = {sum(parts.values()) / scale:.1f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--designs", default=",".join(DEFAULT_DESIGNS),
                        help="comma-separated, of: " + ", ".join(DESIGNS))
    parser.add_argument("--runsc", action="append", default=[], metavar="PATH",
                        help="another runsc to measure beside the designs (repeatable): its "
                             "ptrace and, where it has it, its systrap platform")
    args = parser.parse_args()
    names = [name.strip() for name in args.designs.split(",")]
    for runsc in args.runsc:
        version, platforms = gvisor.runsc_facts(runsc)
        for platform in ("ptrace", "systrap"):
            if platform in platforms:
                name = f"gVisor {platform}, runsc {version}"
                DESIGNS[name] = {"KAISER_SANDBOX_KERNEL": "gvisor", "KAISER_RUNSC": runsc,
                                 "KAISER_GVISOR_PLATFORM": platform}
                names.append(name)
    loads = Loads()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; runsc on PATH: "
          + (_runsc_words(runsc) if (runsc := gvisor.runsc_path()) else "none"))
    totals: dict[str, Any] = {}
    for _ in range(2):  # in turns: every backend sees the same load
        for name in names:
            one_design(name, max(1, args.matches // 2), loads, totals)
    for name in names:
        report(name, totals[name], loads)
    print(f"load average {os.getloadavg()[0]:.1f} at the end; median seat boot "
          + ", ".join(f"{n} {statistics.median(_boots(totals[n]['split'])) / 1e6:.0f} ms"
                      for n in names if _boots(totals[n]['split'])))


def _runsc_words(runsc: str) -> str:
    version, platforms = gvisor.runsc_facts(runsc)
    return f"{runsc} {version} (platforms: {', '.join(platforms)})"


def _boots(split: Split) -> list[float]:
    return [sum(between(s["spawned"], s["booted"]).values())
            for s in split.snaps.values() if "booted" in s and "spawned" in s]


if __name__ == "__main__":
    main()
