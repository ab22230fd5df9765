"""Keeps a helper process running while its seat should be stopped, with no call the filter
could refuse: the helper arms POSIX timers (timer_create, SIGEV_SIGNAL) that send it SIGCONT
every millisecond. The kernel makes the signal, so a helper stopped by the engine runs again
within a millisecond. _offmove reports how long it ran off move."""

import ctypes
import signal
import time

import _offmove
from _play import run

libc = ctypes.CDLL(None, use_errno=True)
CLOCK_MONOTONIC, SIGEV_SIGNAL = 1, 0


class SigEvent(ctypes.Structure):
    _fields_ = [("sigev_value", ctypes.c_void_p), ("sigev_signo", ctypes.c_int),
                ("sigev_notify", ctypes.c_int), ("padding", ctypes.c_int * 12)]


class TimeSpec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class ITimerSpec(ctypes.Structure):
    _fields_ = [("it_interval", TimeSpec), ("it_value", TimeSpec)]


TIMERS = 4
armed = []
last_armed = [0.0]


def arm(number):
    # A handled SIGCONT: a timer whose signal is ignored (SIGCONT's default) is parked by
    # newer kernels after its first expiry.
    signal.signal(signal.SIGCONT, lambda *_: None)
    for _ in range(TIMERS):
        timer = ctypes.c_void_p()
        event = SigEvent(None, int(signal.SIGCONT), SIGEV_SIGNAL)
        if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)) < 0:
            _offmove.note_error(number, ctypes.get_errno())
            return
        armed.append(timer)


def rearm(number):
    """(Re)starts every timer, a quarter of a period apart. A stop signal throws away a
    SIGCONT that is still pending, and a periodic timer goes on only once its signal is
    delivered: one caught so is dead until started again."""
    for place, timer in enumerate(armed):
        first = TimeSpec(0, 1_000_000 + place * 250_000)
        every = ITimerSpec(TimeSpec(0, 1_000_000), first)
        if libc.timer_settime(timer, 0, ctypes.byref(every), None) < 0:
            _offmove.note_error(number, ctypes.get_errno())


def count_on(number):
    if not armed:
        arm(number)
    now = time.monotonic()
    if now - last_armed[0] > 0.005:
        last_armed[0] = now
        rearm(number)


run(on_hello=lambda seat: _offmove.start_helper(count_on), on_act=_offmove.on_act,
    on_end=_offmove.on_end, on_game_end=_offmove.on_game_end)
