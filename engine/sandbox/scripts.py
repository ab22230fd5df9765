"""The shell scripts a seat starts with, built as strings: the host's outer script (joins the
seat's cgroups, moves the pipes), the inner script inside bwrap's namespaces, the gVisor seat's
supervisor and its inner script. Both inner scripts end in the zygote (engine/sandbox/zygote.py, the
gate between a booted seat and its bot: _ZYGOTE).
"""

from __future__ import annotations

import pkgutil
import shlex
from collections.abc import Sequence
from pathlib import Path

from engine.sandbox.cgroups import _Cgroup, _CgroupV1
from engine.sandbox.limits import SandboxLimits

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
BOT_DIR = "/bot"
# V8 reserves far more address space than it uses: with an address-space rlimit (the fallback
# when no memory cgroup is available) node needs this much on top of the memory limit to start.
NODE_ADDRESS_SPACE_EXTRA_MB = 4096


def _environment() -> dict[str, str]:
    return {"PATH": SANDBOX_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def _inner_script(limits: SandboxLimits, run: Sequence[str] | None, cgroup: bool) -> str:
    """Runs inside the namespaces: the bot's pipes onto 0 and 1, rlimits, then the zygote,
    which says 'started' on fd 5 and waits at the gate for its program.

    The bot's stdin and stdout arrive as fds 3 and 4 (bwrap's own stdio is /dev/null), so the
    bot's process tree is the only holder of its output pipe: when it closes it, we see it.
    run: the program, where the seat's limits depend on it (a seat with no cgroup is booted
    for its program, never ahead). The script's one argument is the zygote's text.
    """
    kib = limits.memory_mb << 10
    if run and Path(run[0]).name == "node":
        kib += NODE_ADDRESS_SPACE_EXTRA_MB << 10
    parts = ["exec 0<&3 1>&4 3<&- 4>&-", "ulimit -c 0", "ulimit -n 256",
             f"ulimit -t {limits.cpu_seconds}",
             f"ulimit -f {(limits.file_size_mb << 20) // 512}"]  # dash counts 512-byte blocks
    if not cgroup:
        # One process a seat (the filter refuses fork): its address space is the seat's
        # memory. -p counts threads (Node starts about ten) and the two bwrap processes.
        parts += [f"ulimit -v {kib}", f"ulimit -p {limits.max_processes + 2}"]
    # A missing interpreter is the machine's failing, not the bot's: say so on the 'started'
    # pipe, which the bot's own code never gets to write on (the zygote closes it first).
    parts += ['command -v python3 >/dev/null 2>&1 || { printf "?" >&5; exit 127; }',
              'exec python3 -c "$1" 5']
    return "; ".join(parts)


# The gate between a booted seat and its bot is the zygote (zygote.py): the seat's first
# process, a Python interpreter that waits for one line naming the program on the bot's input,
# which wait_started() sends when the seat's game begins. A seat booted ahead (the pool's, or
# the next game's, engine.tables) runs nothing of the bot's before then.
# (pkgutil: the local runner's kaiser-engine.pyz imports the engine from a zip)
_ZYGOTE = (pkgutil.get_data("engine.sandbox", "zygote.py") or b"").decode()


def _gvisor_supervisor(cgroup_procs: Sequence[Path], group: _Cgroup | None) -> str:
    """The gVisor seat's launcher: joins the seat's cgroups, starts runsc, and stays as the
    seat's supervisor, outside the seat's freezer (v1), with no copy of the bot's pipes.

    Why: on cgroup v1 a frozen task cannot die, not even of SIGKILL, so a seat frozen when its
    worker is killed would outlive it, the parent-death signal of runsc pending for ever. The
    supervisor is never frozen: when the worker's thread dies it gets SIGTERM, thaws the seat
    and kills every task of it. Its exit status is runsc's."""
    joins = [f"echo $$ > {shlex.quote(str(path))}" for path in cgroup_procs]
    # "0<&0": a shell gives a command in the background /dev/null as input unless told.
    parts = [" && ".join(joins) or ":", '"$@" 0<&0 &', "seat=$!"]
    if isinstance(group, _CgroupV1) and "freezer" in group.paths:
        state = shlex.quote(str(group.paths["freezer"] / "freezer.state"))
        tasks = shlex.quote(str(group.pids_file()))
        outside = shlex.quote(str(group.paths["freezer"].parent / "cgroup.procs"))
        parts += [f"echo $$ > {outside} 2>/dev/null",
                  f"trap 'echo THAWED > {state}; kill -9 $(cat {tasks}) 2>/dev/null; "
                  "exit 143' TERM"]
    parts += ["exec 0</dev/null 1>/dev/null 2>/dev/null", 'wait "$seat"', "exit $?"]
    return "\n".join(parts)


def _gvisor_inner_script(limits: SandboxLimits) -> str:
    """Runs inside gVisor: rlimits the OCI config cannot say, then the zygote, which says
    'started' on stdout (no extra pipe crosses into gVisor)."""
    return "; ".join([
        "ulimit -c 0", f"ulimit -f {(limits.file_size_mb << 20) // 512}",
        'command -v python3 >/dev/null 2>&1 || { printf "?"; exit 127; }',
        'exec python3 -c "$1" 1'])


def _outer_script(started_fd: int, cgroup_procs: Sequence[Path]) -> str:
    """Runs on the host before bwrap: joins the seat's cgroups, moves the pipes to fds 3-5."""
    parts = [f"echo $$ > {shlex.quote(str(path))}" for path in cgroup_procs]
    parts.append(f"exec 3<&0 4>&1 5>&{started_fd} {started_fd}>&- 0</dev/null 1>/dev/null")
    return " && ".join(parts) + '; exec "$@"'
