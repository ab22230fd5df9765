"""The filter's argument rules look at what the kernel reads (issue 19).

The kernel reads fcntl's and ioctl's command as an unsigned int and a signal number as an int,
so the upper half of a 64-bit register is ignored: fcntl(fd, F_OFD_SETLK | 1 << 32) takes a
lock and kill(pid, SIGCONT | 1 << 32) sends SIGCONT. Each test runs a small program that
installs the filter's own BPF program (the bytes bwrap --seccomp gets) and makes raw calls
through ctypes' syscall(), which passes every argument as a full 64-bit register.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.sandbox import filter as syscall_filter

pytestmark = [pytest.mark.timeout(60)]

EPERM = os.strerror(errno.EPERM)
HIGH = 1 << 32  # the upper half of the register: the kernel ignores it for an int
SIGCONT = 18
F_OFD_GETLK, F_OFD_SETLK = syscall_filter.F_OFD_GETLK, syscall_filter.F_OFD_SETLK
F_GETFD = 1
ADDR_NO_RANDOMIZE, QUERY = 0x0040000, 0xFFFFFFFF

# Runs in a child: installs the program, makes each call, prints {name: "ok" | strerror}.
# Symbolic arguments: FD (this interpreter's file, read-only), BUF (256 zero bytes, enough for
# a struct flock, a siginfo or an iovec), PID, TID, PIDFD (a pidfd of itself).
CHILD = r"""
import ctypes, json, os, signal, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.syscall.argtypes = [ctypes.c_long] + [ctypes.c_ulong] * 6

class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

signal.signal(signal.SIGCONT, signal.SIG_IGN)
code = open(sys.argv[1], "rb").read()
if code:
    buffer = ctypes.create_string_buffer(code, len(code))
    program = Program(len(code) // 8, ctypes.addressof(buffer))
    assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
    assert libc.prctl(22, 2, ctypes.byref(program), 0, 0) == 0  # SECCOMP_MODE_FILTER
scratch = ctypes.create_string_buffer(256)
names = {"FD": os.open(sys.executable, os.O_RDONLY), "BUF": ctypes.addressof(scratch),
         "PID": os.getpid(), "TID": threading.get_native_id(), "PIDFD": os.pidfd_open(os.getpid())}
results = {}
for name, number, *args in json.loads(sys.argv[2]):
    ctypes.memset(scratch, 0, 256)
    values = [names[a] if isinstance(a, str) else a for a in args]
    answer = libc.syscall(number, *values, *[0] * (6 - len(values)))
    if answer == 0 and number == 56:  # a clone that was let through: the copy leaves
        os._exit(0)
    results[name] = "ok" if answer >= 0 else os.strerror(ctypes.get_errno())
print(json.dumps(results))
"""

# x86_64 numbers
FCNTL, IOCTL, KILL, TKILL, TGKILL, RT_SIGQUEUEINFO, RT_TGSIGQUEUEINFO, PIDFD_SEND_SIGNAL = (
    72, 16, 62, 200, 234, 129, 297, 424)
PERSONALITY, CLONE, PREADV2 = 135, 56, 327
# Each refused call as (name, number, args): {} stands where the int argument goes.
REFUSED_CALLS: list[tuple[str, int, tuple[Any, ...]]] = [
    *[(f"fcntl {command}", FCNTL, ("FD", "{}", "BUF"))
      for command in syscall_filter.REFUSED_FCNTL],
    ("ioctl TIOCSTI", IOCTL, ("FD", "{}", "BUF")),
    ("ioctl TIOCLINUX", IOCTL, ("FD", "{}", "BUF")),
    ("kill SIGCONT", KILL, ("PID", "{}")),
    ("tkill SIGCONT", TKILL, ("TID", "{}")),
    ("tgkill SIGCONT", TGKILL, ("PID", "TID", "{}")),
    ("rt_sigqueueinfo SIGCONT", RT_SIGQUEUEINFO, ("PID", "{}", "BUF")),
    ("rt_tgsigqueueinfo SIGCONT", RT_TGSIGQUEUEINFO, ("PID", "TID", "{}", "BUF")),
    ("pidfd_send_signal SIGCONT", PIDFD_SEND_SIGNAL, ("PIDFD", "{}", 0, 0)),
    ("personality ADDR_NO_RANDOMIZE", PERSONALITY, ("{}",)),
    ("clone CLONE_NEWUSER", CLONE, ("{}", 0, 0, 0, 0)),
    ("preadv2 RWF_NOWAIT", PREADV2, ("FD", "BUF", 1, 0, 0, "{}")),
]
INT_VALUES = {
    **{f"fcntl {command}": command for command in syscall_filter.REFUSED_FCNTL},
    "ioctl TIOCSTI": syscall_filter.TIOCSTI, "ioctl TIOCLINUX": syscall_filter.TIOCLINUX,
    "personality ADDR_NO_RANDOMIZE": ADDR_NO_RANDOMIZE,
    "clone CLONE_NEWUSER": 0x10000000 | 17,  # | SIGCHLD
    "preadv2 RWF_NOWAIT": syscall_filter.RWF_NOWAIT,
}


def outcomes(calls: list[tuple[Any, ...]], tmp_path: Path, *,
             one_process: bool = False, filtered: bool = True) -> dict[str, str]:
    code = syscall_filter.filter_program(one_process=one_process) if filtered else b""
    assert code is not None, "the bindings are installed on every machine of this project"
    program = tmp_path / "filter.bpf"
    program.write_bytes(code)
    done = subprocess.run([sys.executable, "-c", CHILD, str(program), json.dumps(calls)],
                          capture_output=True, text=True, check=True, timeout=30)
    result: dict[str, str] = json.loads(done.stdout)
    return result


def forms(name: str, number: int, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The plain call and its two wide forms: one high bit, and every high bit set."""
    value = INT_VALUES.get(name, SIGCONT)
    return [(f"{name} {label}", number, *[wide if a == "{}" else a for a in args])
            for label, wide in (("plain", value), ("1<<32", value | HIGH),
                                ("high ones", value | 0xFFFFFFFF00000000))]


@pytest.mark.parametrize("one_process", [False, True], ids=["cgroup", "one-process"])
@pytest.mark.parametrize(("name", "number", "args"), REFUSED_CALLS,
                         ids=[call[0] for call in REFUSED_CALLS])
def test_a_refused_call_is_refused_whatever_the_upper_half_of_its_int_argument(
        tmp_path: Path, one_process: bool, name: str, number: int,
        args: tuple[Any, ...]) -> None:
    seen = outcomes(forms(name, number, args), tmp_path, one_process=one_process)

    assert seen == {f"{name} {label}": EPERM for label in ("plain", "1<<32", "high ones")}


def test_without_the_filter_the_kernel_reads_only_the_low_32_bits(tmp_path: Path) -> None:
    """The control that makes the test above mean something: unfiltered, the wide forms are
    the real calls (a lock query, a lock taken, a SIGCONT sent, ASLR turned off)."""
    calls = [("ofd_getlk", FCNTL, "FD", F_OFD_GETLK | HIGH, "BUF"),
             ("ofd_setlk", FCNTL, "FD", F_OFD_SETLK | HIGH, "BUF"),
             ("not a command", FCNTL, "FD", 0x7FFF | HIGH, "BUF"),
             ("kill", KILL, "PID", SIGCONT | HIGH),
             ("no such signal", KILL, "PID", 99 | HIGH),
             ("personality", PERSONALITY, ADDR_NO_RANDOMIZE | HIGH),
             ("personality now", PERSONALITY, QUERY)]

    seen = outcomes(calls, tmp_path, filtered=False)

    assert seen["ofd_getlk"] == seen["ofd_setlk"] == seen["kill"] == "ok"
    invalid = os.strerror(errno.EINVAL)  # the kernel did look at the low half
    assert seen["not a command"] == seen["no such signal"] == invalid


def test_the_calls_beside_the_refused_ones_still_pass(tmp_path: Path) -> None:
    calls = [("fcntl F_GETFD wide", FCNTL, "FD", F_GETFD | HIGH, 0),
             ("kill 0 wide", KILL, "PID", HIGH),
             ("kill SIGWINCH wide", KILL, "PID", 28 | HIGH),
             ("personality query", PERSONALITY, QUERY),
             ("personality query wide", PERSONALITY, QUERY | 0xFFFFFFFF00000000),
             ("personality PER_LINUX", PERSONALITY, 0),
             ("personality UNAME26", PERSONALITY, 0x0020000)]

    seen = outcomes(calls, tmp_path)

    assert seen == {name: "ok" for name, *_ in calls}


@pytest.mark.parametrize("value", [0x80000000 | ADDR_NO_RANDOMIZE, 0xFFFFFFFE, 0x80000000,
                                   0x7FFFFFFF], ids=hex)
def test_only_the_exact_personality_query_passes_with_the_top_bit(tmp_path: Path,
                                                                  value: int) -> None:
    # The kernel sets every value but 0xffffffff: 0x80040000 turns ASLR off as 0x40000 does.
    seen = outcomes([("personality", PERSONALITY, value)], tmp_path)

    assert seen == {"personality": EPERM}
