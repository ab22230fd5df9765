"""An honest bot that does a fixed amount of work on each of its first MOVES decisions, then
plays at once: ROUNDS rounds of a pure-Python loop (crunch.txt: "ROUNDS MOVES"). Unlike
thinker.py, which burns CPU time as it measures it itself, its work is the same whatever any
clock says. Reports the wall time of each move it worked on, from the act message's arrival
to its reply.

`python3 cruncher.py --rounds-for SECONDS` prints the rounds that take SECONDS of CPU time in
this python3 (the best of three), to size the work from outside the sandbox."""

import json
import os
import sys
import time

from _play import report, run

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crunch.txt")


def crunch(rounds):
    total = 0
    for i in range(rounds):
        total += i * i % 7
    return total


def cpu_seconds(rounds):
    started = time.thread_time()
    crunch(rounds)
    return time.thread_time() - started


def main():
    with open(SETTING) as handle:
        rounds, moves = (int(word) for word in handle.read().split())
    walls = []

    def on_act(seat, message):
        if len(walls) >= moves:  # worked enough: plays at once from now on
            return
        started = time.monotonic()
        crunch(rounds)
        walls.append(time.monotonic() - started)

    run(on_act=on_act, on_end=lambda seat: report(json.dumps({"walls": walls})))


if sys.argv[1:2] == ["--rounds-for"]:
    print(int(200_000 * float(sys.argv[2]) / min(cpu_seconds(200_000) for _ in range(3))))
else:
    main()
