"""The lower seat of the pair (0 or 1) locks shared files, its partner (2 or 3) looks for the
locks on every move: flock and fcntl record locks on its program file and on the Python
interpreter under /usr; it also tries to start an inotify watch."""

import ctypes
import fcntl
import os
import sys

from _play import report, run

libc = ctypes.CDLL(None, use_errno=True)
SHARED = ["/bot/bot.py", os.path.realpath(sys.executable)]
results = {}
handles = {}
seen = []


def attempt(name, action):
    try:
        action()
        results[name] = "ok"
    except OSError as error:
        results[name] = os.strerror(error.errno)


def on_hello(seat):
    for path in SHARED:
        handles[path] = open(path, "rb")  # noqa: SIM115 - held for the whole match
    if seat < 2:  # the signalling seat of the pair
        for path, handle in handles.items():
            attempt(f"flock {path}", lambda h=handle: fcntl.flock(h, fcntl.LOCK_SH))
            attempt(f"lockf {path}", lambda h=handle: fcntl.lockf(h, fcntl.LOCK_SH))
    fd = libc.inotify_init()
    results["inotify"] = "ok" if fd >= 0 else os.strerror(ctypes.get_errno())


def on_act(seat, message):
    if seat >= 2:  # the partner: does it see a lock?
        for path, handle in handles.items():
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
            except BlockingIOError:
                seen.append(path)
            except OSError:
                pass


run(on_hello=on_hello, on_act=on_act,
    on_end=lambda seat: report("; ".join(f"{k}: {v}" for k, v in sorted(results.items()))
                               + f"; partner locks seen: {len(seen)}"))
