"""A seat that takes SECONDS of wall time on each of its first MOVES moves (seat 0 of game 0
only, so that a match shows it soonest), then plays at once; the first legal action always.

sleeper.txt: "MODE SECONDS MOVES"; MODE `sleep` (no CPU time at all: what a signaller that
holds its replies back does) or `compute` (in bursts, a thirtieth of the time: what a seat
that works gets of a core on a host loaded 30 times over).
"""

import json
import os
import sys
import time

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sleeper.txt")
with open(SETTING) as handle:
    words = handle.read().split()
MODE, SECONDS, MOVES = words[0], float(words[1]), int(words[2])
BURST_S, SHARE = 0.01, 0.03  # compute: 0.3 ms of CPU time in each 10 ms


def take_time():
    started = time.perf_counter()
    if MODE == "sleep":
        time.sleep(SECONDS)
    else:
        while time.perf_counter() - started < SECONDS:
            burst = time.perf_counter()  # not process_time: the sandbox's ticks are coarse
            while time.perf_counter() - burst < BURST_S * SHARE:
                pass
            time.sleep(BURST_S * (1 - SHARE))


def action(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


def main():
    slow = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            if message["seat"] == 0 and message["match"]["game"] == 0:
                slow = MOVES
            print(json.dumps({"id": 0, "type": "ready"}), flush=True)
        elif message["type"] == "act":
            if slow:
                slow -= 1
                take_time()
            print(json.dumps({"id": message["id"], "action": action(message)}), flush=True)
        elif message["type"] == "match_end":
            return


main()
