"""The first process of every seat: a Python interpreter, booted ahead, that becomes the bot.

engine.sandbox runs this file's text with `python3 -c` inside a fresh sandbox, before any bot
is chosen for the seat (a pool keeps such seats ready: engine.sandbox.pool). It is the gate
between a booted seat and its bot: no code of the bot's runs before the engine sends, on the
seat's input, one line that names the program (JSON: {"run": [...], "dir": "/bot"}), and the
engine sends it only when the seat's game begins (engine.tables lets a whole table in at once).

On its 'started' channel (argv[1]: a file descriptor; 1, the bot's own output, under gVisor)
the zygote writes one byte when it is up ('.'), and one more once it has the line: '.' the bot
runs now, '?' its interpreter is not installed here (exit 127, the machine's failing, never
the bot's). Then:
- `python3 FILE.py` (the usual bot): the script runs as __main__ in this very interpreter,
  exactly as `python3 FILE.py` would run it (sys.argv, sys.path[0], __file__, exit status), but
  without the interpreter's start-up of about 0.3 s under gVisor;
- anything else (node, an executable, python3 with options): exec'd in place of the zygote.

While it waits for that line, the zygote also waits (up to CLOCK_WAIT_S) until reading the
clock costs no system call. gVisor's kernel serves clock_gettime from its vDSO only once it
has calibrated its clocks, about a second after it boots; until then every read is a system
call, which under the ptrace platform costs tens of microseconds, and CPython 3.11 reads the
monotonic clock at every buffered read and write (each takes its lock with a deadline). A
seat booted ahead (the pool's, the next game's table) spends that second idle anyway; the
line, when it comes, ends the wait at once, so no game waits for it. On the host's kernel
the clock is ready from the start and the check costs microseconds.

The input is read a byte at a time, so the bot's first message stays for the bot. Standard
library only; of what a bot might import, it imports ahead only json (which nearly every bot
imports first), time and select (for the clock's wait).
"""

import builtins
import json
import os
import select
import sys
import time
import types
from importlib.machinery import SourceFileLoader

CLOCK_WAIT_S = 3.0  # a kernel whose clock is not ready by then: the bot runs all the same
CLOCK_READS = 20
CLOCK_READS_NS = 100_000  # 5 µs a read: a system call's cost, where the vDSO's is 0.1 µs


def _wait_for_a_calibrated_clock():
    """Until the clock is read without a system call, the wait's end, or the gate line."""
    deadline = time.monotonic() + CLOCK_WAIT_S
    while True:
        started = time.perf_counter_ns()
        for _ in range(CLOCK_READS):
            time.monotonic_ns()
        if time.perf_counter_ns() - started < CLOCK_READS_NS or time.monotonic() > deadline:
            return
        if select.select([0], [], [], 0.05)[0]:
            return  # the seat's game begins


def _gate_line():
    line = bytearray()
    while True:
        byte = os.read(0, 1)
        if not byte:
            os._exit(0)  # input closed before the line: the seat was never wanted
        if byte == b"\n":
            if line:
                return json.loads(line)
            continue
        line += byte


def _python_script(run):
    """The script of `python3 FILE.py [args]` (no interpreter options), else None."""
    if len(run) >= 2 and os.path.basename(run[0]) == "python3" and not run[1].startswith("-"):
        return run[1]
    return None


def _run_script(script, args, folder):
    """As `python3 script args` runs it: a fresh __main__ module, __file__ the script's
    absolute path, sys.argv as given, sys.path[0] the script's real folder."""
    path = os.path.join(folder, script)
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __builtins__=builtins,
                           __loader__=SourceFileLoader("__main__", path))
    sys.modules["__main__"] = module
    try:
        with open(path, "rb") as source:
            code = compile(source.read(), path, "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 - the bot, in its own sandbox
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 - printed as Python prints it, then exit 1
        trace = error.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename != path:
            trace = trace.tb_next  # the zygote's frames are not the bot's
        sys.excepthook(type(error), error.with_traceback(trace), trace)
        sys.exit(1)


def main():
    started = int(sys.argv[1])
    os.write(started, b".")
    _wait_for_a_calibrated_clock()
    order = _gate_line()
    run, folder = [str(part) for part in order["run"]], str(order["dir"])
    os.chdir(folder)
    script = _python_script(run)
    program = sys.executable if script is not None else _which(run[0])
    os.write(started, b"." if program is not None else b"?")
    if started != 1:
        os.close(started)
    if program is None:
        os._exit(127)
    if script is not None:
        _run_script(script, run[2:], folder)
    else:
        os.execv(program, run)


def _which(name):
    import shutil

    return shutil.which(name) if "/" not in name else (name if os.access(name, os.X_OK)
                                                         else None)


main()
