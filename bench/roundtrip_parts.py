"""Where a gVisor seat's decision round trip goes. Prints figures; asserts nothing.

    .venv/bin/python bench/roundtrip_parts.py [--trips N] [--kernels gvisor,host,none]

One seat, one bot, N exchanges of an act-sized line, timed at the engine (wall) and at the
seat's cgroup (CPU), with and without freezing the seat between exchanges (thaw after the
write, freeze after the reply: what engine.botproc._Table does), for two bots: the trivial
one (json, `for line in sys.stdin`, print(flush=True)) and one that reads and writes with one
os.read and one os.write an exchange.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.sandbox import SandboxLimits, SandboxProcess  # noqa: E402
from engine.sandbox.cgroups import _CgroupV1  # noqa: E402

BOTS = {
    "json+print": (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    print(json.dumps({'id': m['id'], 'action': m['legal'][0]}), flush=True)\n"),
    "os.read/write": (
        "import os\n"
        "while True:\n"
        "    data = os.read(0, 65536)\n"
        "    if not data:\n"
        "        break\n"
        "    os.write(1, b'{\"id\":1,\"action\":0}\\n')\n"),
}
IDLE_S = 1.5  # a pooled seat's idle time before its game, here
MESSAGE = (b'{"type":"act","id":1,"decision":"play","legal":[0,1,2,3],"state":{"hand":'
           + b"[" + b",".join(b"%d" % i for i in range(8)) + b"]," + b'"pad":"' + b"x" * 500
           + b'"}}\n')


def exchange(proc: SandboxProcess, freeze: bool) -> tuple[float, float, float]:
    """(wall of write..reply, wall of the thaw write, wall of the freeze write), seconds."""
    poll = select.poll()
    poll.register(proc.stdout_fd, select.POLLIN)
    started = time.perf_counter()
    os.write(proc.stdin_fd, MESSAGE)
    thaw = time.perf_counter()
    if freeze:
        proc.resume()
    thawed = time.perf_counter()
    buffer = b""
    while not buffer.endswith(b"\n"):
        try:
            buffer += os.read(proc.stdout_fd, 65536)
        except BlockingIOError:
            poll.poll(1000)
    ended = time.perf_counter()
    if freeze:
        proc.stop_step()
    frozen = time.perf_counter()
    return ended - started, thawed - thaw, frozen - ended


def measure(kernel: str, bot: str, freeze: bool, trips: int, all_frozen: bool = False) -> str:
    """all_frozen: every task of a gVisor seat in its freezer (the design before issue 33)."""
    narrow = _CgroupV1.freeze_only_below
    if all_frozen:
        _CgroupV1.freeze_only_below = lambda self, pid: None  # type: ignore[method-assign]
    try:
        return _measure(kernel, bot, freeze, trips) + (" all frozen" if all_frozen else "")
    finally:
        _CgroupV1.freeze_only_below = narrow  # type: ignore[method-assign]


def _measure(kernel: str, bot: str, freeze: bool, trips: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="rt-bot-"))
    (folder / "bot.py").write_text(BOTS[bot])
    os.chmod(folder, 0o755)
    os.chmod(folder / "bot.py", 0o644)
    if kernel != "none":
        os.environ["KAISER_SANDBOX_KERNEL"] = kernel
    # As the pool's seats: booted, idle a while (gVisor calibrates its clocks meanwhile, see
    # engine/sandbox/zygote.py), then handed the bot.
    proc = SandboxProcess(limits=SandboxLimits(), unsandboxed=kernel == "none")
    try:
        assert proc.wait_booted(time.monotonic() + 30)
        time.sleep(IDLE_S)
        proc.hand(folder, ("python3", "bot.py"))
        assert proc.wait_started(time.monotonic() + 30)
        for _ in range(20):  # warm up (imports, first pages)
            exchange(proc, False)
        cpu0 = proc.cpu_ns()
        results = [exchange(proc, freeze) for _ in range(trips)]
        cpu1 = proc.cpu_ns()
    finally:
        if freeze:
            proc.resume()
        proc.kill()
    walls = sorted(r[0] for r in results)
    cpu = f"{(cpu1 - cpu0) / trips / 1e3:5.0f}" if cpu0 is not None and cpu1 else "    ?"
    return (f"{kernel:<6} {bot:<14} freeze={'on ' if freeze else 'off'} median "
            f"{statistics.median(walls) * 1e6:5.0f} µs p90 {walls[int(0.9 * trips)] * 1e6:5.0f}"
            f" µs; thaw {statistics.median(r[1] for r in results) * 1e6:4.0f} µs, freeze "
            f"{statistics.median(r[2] for r in results) * 1e6:4.0f} µs; seat CPU {cpu} µs"
            f"  (load {os.getloadavg()[0]:.1f})")


def hold_one_frozen() -> Path | None:
    """An empty freezer cgroup kept FROZEN: the kernel turns its freezer on (a code patch, a
    static key) when the first cgroup freezes and off when the last thaws, which a lone seat
    would pay on every exchange; a table of several seats always has one frozen."""
    path = Path("/sys/fs/cgroup/freezer") / f"roundtrip-parts-{os.getpid()}"
    try:
        path.mkdir()
        (path / "freezer.state").write_text("FROZEN")
    except OSError:
        return None
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trips", type=int, default=300)
    parser.add_argument("--kernels", default="none,gvisor")
    parser.add_argument("--bots", default=",".join(BOTS))
    parser.add_argument("--freeze", default="off,on")
    parser.add_argument("--all-frozen", action="store_true",
                        help="gVisor with freezing: also every task of the seat frozen (before)")
    args = parser.parse_args()
    held = hold_one_frozen()
    try:
        run(args)
    finally:
        if held is not None:
            (held / "freezer.state").write_text("THAWED")
            held.rmdir()


def run(args: argparse.Namespace) -> None:
    for kernel in args.kernels.split(","):
        for bot in args.bots.split(","):
            for freeze in args.freeze.split(","):
                if kernel == "none" and freeze == "on":
                    continue
                print(measure(kernel, bot, freeze == "on", args.trips), flush=True)
                if args.all_frozen and kernel == "gvisor" and freeze == "on":
                    print(measure(kernel, bot, True, args.trips, all_frozen=True), flush=True)


if __name__ == "__main__":
    main()
