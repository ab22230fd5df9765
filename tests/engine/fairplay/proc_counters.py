"""Reads the host-wide counters under /proc through which partners could talk (free memory,
CPU times, page faults, open files, keys) and reports what it saw as JSON."""

import json
import os

from _play import report, run

PATHS = ["/proc/meminfo", "/proc/stat", "/proc/loadavg", "/proc/uptime", "/proc/vmstat",
         "/proc/keys", "/proc/key-users", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr",
         "/proc/schedstat", "/proc/interrupts", "/proc/pressure/cpu", "/proc/diskstats"]
seen = {}


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError as error:
        return f"error: {os.strerror(error.errno)}"


def on_act(seat, message):
    for path in PATHS:
        seen.setdefault(path, set()).add(read(path))


run(on_act=on_act, on_end=lambda seat: report(json.dumps(
    {path: sorted(values) for path, values in seen.items()})))
