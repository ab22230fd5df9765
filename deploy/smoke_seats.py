"""The seats' freezer as the host sees it, for deploy/smoke.sh (run on the host as root,
standard library only). DIR holds one folder a seat, kaiser-<worker pid>-<n>: on cgroup v1 a
worker container's freezer cgroup, on v2 its kaiser-seats/. One worker process plays one
match at a time, so the pid names the match.

    python3 deploy/smoke_seats.py watch DIR STOPFILE [MAX_SECONDS]
        reads every seat's freezer.state about every 5 ms until STOPFILE exists, then prints
        one JSON object: the samples, and in how many of them every seat off move was frozen
    python3 deploy/smoke_seats.py kill-when-frozen DIR CONTAINER [MAX_SECONDS]
        waits for a moment when a seat of DIR is FROZEN, then `docker kill -s KILL CONTAINER`
        at once; prints the seats' states just before the kill

A seat is read twice in a row and counted only if both reads agree: the engine hands the move
from one seat to the next within microseconds, and one pass over the seats can straddle that.
A seat is at the table (off move or on it) from the first sample that shows it frozen (after
its answer to hello) to the last: before that it boots or says hello, after that it leaves.
Every seat off move frozen, in a sample: no two seats of one match at the table THAWED.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

INTERVAL_S = 0.005
FROZEN = {"FROZEN", "FREEZING"}
V2_STATES = {"1": "FROZEN", "0": "THAWED"}
Sample = tuple[float, dict[str, str]]


def read_state(seat: Path) -> str | None:
    """FROZEN, FREEZING or THAWED (v1's words; v2's cgroup.freeze says 1 or 0)."""
    try:
        if (seat / "freezer.state").exists():
            return (seat / "freezer.state").read_text().strip()
        return V2_STATES[(seat / "cgroup.freeze").read_text().strip()]
    except (OSError, KeyError):  # the seat left between the listing and the read
        return None


def read_seats(root: Path) -> dict[str, str]:
    states = {}
    for seat in sorted(root.glob("kaiser-*")):
        first, second = read_state(seat), read_state(seat)
        if first is not None and second is not None:
            states[seat.name] = first if first == second else "CHANGING"
    return states


def match_of(seat: str) -> str:
    return seat.split("-")[1]


def watch(root: Path, stop: Path, max_seconds: float) -> dict[str, Any]:
    """Samples until `stop` exists; meanwhile STOP.count says how many samples showed a seat
    frozen so far (the caller waits for enough of them)."""
    samples: list[Sample] = []
    frozen = 0
    start = time.monotonic()
    while True:  # one sample at least, however soon it is told to stop
        samples.append((time.monotonic() - start, read_seats(root)))
        frozen += any(state in FROZEN for state in samples[-1][1].values())
        if len(samples) % 50 == 0:
            Path(f"{stop}.count").write_text(f"{frozen}\n")
        if stop.exists() or time.monotonic() - start > max_seconds:
            break
        time.sleep(INTERVAL_S)
    return summary(samples)


def at_table(samples: list[Sample]) -> dict[str, tuple[int, int]]:
    """Each seat's first and last sample frozen: its time at the table."""
    span: dict[str, tuple[int, int]] = {}
    for index, (_, states) in enumerate(samples):
        for seat, state in states.items():
            if state in FROZEN:
                span[seat] = (span.get(seat, (index, index))[0], index)
    return span


def summary(samples: list[Sample]) -> dict[str, Any]:
    span = at_table(samples)
    readings: Counter[str] = Counter()
    playing = all_frozen = 0
    broken: list[dict[str, Any]] = []
    for index, (when, states) in enumerate(samples):
        readings.update(states.values())
        seated = [s for s in states if span.get(s, (index + 1, 0))[0] <= index <= span[s][1]]
        matches = Counter(match_of(s) for s in seated)
        if not any(n >= 2 for n in matches.values()):
            continue  # no table in play in this sample
        playing += 1
        awake = Counter(match_of(s) for s in seated if states[s] == "THAWED")
        if all(n <= 1 for n in awake.values()):
            all_frozen += 1
        elif len(broken) < 5:
            broken.append({"at_s": round(when, 3), "states": states})
    return {
        "samples": len(samples),
        "seconds": round(samples[-1][0], 1) if samples else 0,
        "seats": len({s for _, states in samples for s in states}),
        "matches": len({match_of(s) for s in span}),
        "readings": dict(readings),
        "samples_in_play": playing,
        "samples_off_move_frozen": all_frozen,
        "samples_two_awake": playing - all_frozen,
        "first_two_awake": broken,
    }


def kill_when_frozen(root: Path, container: str, max_seconds: float) -> dict[str, Any]:
    until = time.monotonic() + max_seconds
    while time.monotonic() < until:
        states = read_seats(root)
        if any(state == "FROZEN" for state in states.values()):
            try:  # it waits for the exit: a container that cannot die makes it wait long
                done = subprocess.run(["docker", "kill", "-s", "KILL", container],
                                      capture_output=True, text=True, timeout=60, check=False)
                said = done.stderr.strip() or "ok"
            except subprocess.TimeoutExpired:
                said = "no answer within 60 s"
            frozen = sorted(s for s, state in states.items() if state == "FROZEN")
            return {"killed": True, "states": states, "frozen": frozen, "docker_kill": said}
        time.sleep(0.005)
    return {"killed": False, "states": read_seats(root)}


if __name__ == "__main__":
    command, folder, *rest = sys.argv[1:]
    if command == "watch":
        result = watch(Path(folder), Path(rest[0]), float(rest[1]) if len(rest) > 1 else 600)
    elif command == "kill-when-frozen":
        result = kill_when_frozen(Path(folder), rest[0], float(rest[1]) if len(rest) > 1 else 120)
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result, sort_keys=True))
