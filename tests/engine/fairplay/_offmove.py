"""What the stopping probes of issue 19 share: helper processes of the seat that count how
long they run while the seat is off move, and the seat's report of it.

The seat's main process takes THINK_S over each move, so that its partner's moves (when this
seat must be stopped) are long. It notes in shared memory when it replied; a helper adds
to its count every stretch it ran (a loop with no gap over 0.5 ms) from MARGIN_S after that
reply until the next move arrives (or is waiting on the seat's input), and nothing once
the game has ended (the engine resumes every seat then, to say goodbye). The report line:
    OFFMOVE ran=R off=O fraction=R/O helpers=N
R: seconds the busiest helper ran while off move, O: seconds the seat was off move."""

import array
import fcntl
import mmap
import os
import struct
import termios
import time

from _play import report

THINK_S = 0.15
MARGIN_S = 0.05  # the engine stops a seat once it has read the reply: on a busy host, late
BUSY_BEFORE_S = 0.01  # the helpers idle on move, but run from this long before the reply
RUN_GAP_S = 0.0005
PAUSE_S = 0.002  # a gap this long: the helper was stopped (or had no CPU)
SLOTS = 8  # helpers at most
# Shared memory, in doubles: what the main process says, then a row of a value a helper.
ON_MOVE, OFF_SINCE, OFF_TOTAL, BUSY_FROM = range(4)
RAN, PID, ERROR, RESUMED, SINCE = (4 + SLOTS * row for row in range(5))
# RESUMED: when the helper last ran again after a pause; SINCE: what it counted since.
shared = mmap.mmap(-1, 8 * (4 + 5 * SLOTS))
helpers = []


def _get(slot):
    return struct.unpack_from("d", shared, 8 * slot)[0]


def _set(slot, value):
    struct.pack_into("d", shared, 8 * slot, value)


def start_helper(work):
    """Forks a helper that loops on work(n) (n: its number) and counts its running."""
    number = len(helpers)
    child = os.fork()
    if child == 0:
        try:
            _count(number, work)
        finally:
            os._exit(0)
    _set(PID + number, child)
    helpers.append(child)
    return child


def helper_pid(number):
    return int(_get(PID + number))


def note_error(number, code):
    _set(ERROR + number, code)


def _count(number, work):
    before = time.monotonic()
    while True:
        work(number)
        if _get(ON_MOVE) and time.monotonic() < _get(BUSY_FROM):
            time.sleep(0.001)  # the seat's CPU quota is kept for the time off move
        now = time.monotonic()
        if now - before > PAUSE_S:
            _set(RESUMED + number, now)
            _set(SINCE + number, 0.0)
        elif (now - before < RUN_GAP_S and not _get(ON_MOVE) and 0 < _get(OFF_SINCE) < now
                and not _message_waiting()):
            _set(RAN + number, _get(RAN + number) + now - before)
            _set(SINCE + number, _get(SINCE + number) + now - before)
        before = now


def _message_waiting():
    """Bytes on the seat's input: the engine has resumed the seat for its move, and the main
    process is not yet back from its read. (FIONREAD: gVisor's poll of a host pipe may lag.)"""
    waiting = array.array("i", [0])
    try:
        fcntl.ioctl(0, termios.FIONREAD, waiting)
    except OSError:
        return False
    return waiting[0] > 0


def on_act(seat, message):
    _close_stretch()
    time.sleep(THINK_S)
    _set(OFF_SINCE, time.monotonic() + MARGIN_S)
    _set(ON_MOVE, 0.0)


def on_game_end(seat):
    """The game is over: the engine resumes every seat to say goodbye (game_end, match_end),
    which is not time off move. The helpers count nothing more."""
    _close_stretch()
    _set(OFF_SINCE, 0.0)


def _close_stretch():
    """A message has come: the stretch off move ends at its arrival."""
    arrived = time.monotonic()
    if _get(OFF_SINCE):
        _set(OFF_TOTAL, _get(OFF_TOTAL) + max(0.0, arrived - _get(OFF_SINCE)))
    _set(ON_MOVE, 1.0)
    _set(BUSY_FROM, arrived + THINK_S - BUSY_BEFORE_S)
    for number in range(len(helpers)):
        # A helper that ran again after a pause in this stretch off move was resumed with
        # the seat for this move (the main process is slower to get here than a spinning
        # helper): what it counted since was on move.
        if _get(RESUMED + number) > _get(OFF_SINCE):
            _set(RAN + number, _get(RAN + number) - _get(SINCE + number))
            _set(SINCE + number, 0.0)


def on_end(seat):
    ran = max(_get(RAN + number) for number in range(len(helpers)))
    off = _get(OFF_TOTAL)
    errors = {int(_get(ERROR + number)) for number in range(len(helpers))} - {0}
    if errors:
        report("NOTE helper errors: " + ", ".join(os.strerror(code) for code in errors))
    report(f"OFFMOVE ran={ran:.4f} off={off:.4f} fraction={ran / max(off, 1e-9):.4f} "
           f"helpers={len(helpers)}")
