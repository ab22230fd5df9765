"""Keeps helper processes running while its seat should be stopped: each sends the others
SIGCONT, asked for with the signal's upper 32 bits set (kill(pid, SIGCONT | 1 << 32) is
SIGCONT to the kernel, which reads an int). The engine stops the seat's processes one after
the other: a helper still running wakes those stopped before it (and a SIGCONT also throws
away a stop signal not yet taken), and those wake it in turn. _offmove reports how long they
ran off move."""

import ctypes
import signal

import _offmove
from _play import run

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.syscall.argtypes = [ctypes.c_long] * 3
KILL, WIDE = 62, 1 << 32


HELPERS = 6


def wake_the_others(number):
    for other in range(HELPERS):
        pid = _offmove.helper_pid(other)
        if other != number and pid and libc.syscall(KILL, pid, int(signal.SIGCONT) | WIDE) < 0:
            _offmove.note_error(number, ctypes.get_errno())


def on_hello(seat):
    for _ in range(HELPERS):
        _offmove.start_helper(wake_the_others)


run(on_hello=on_hello, on_act=_offmove.on_act, on_end=_offmove.on_end,
    on_game_end=_offmove.on_game_end)
