"""An honest bot that thinks: it burns THINK_S seconds of CPU (0.25 s) on each of its first
THINK_MOVES decisions, then plays legally. Reports the wall time of each move it thought on,
from the act message's arrival to its reply."""

import json
import os
import time

from _play import report, run

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "think_s.txt")
THINK_S, THINK_MOVES = 0.25, 10**9  # think_s.txt: "SECONDS" or "SECONDS MOVES"
if os.path.exists(SETTING):
    with open(SETTING) as handle:
        words = handle.read().split()
    THINK_S = float(words[0])
    THINK_MOVES = int(words[1]) if len(words) > 1 else THINK_MOVES
walls = []


def on_act(seat, message):
    if len(walls) >= THINK_MOVES:  # thought enough: plays at once from now on
        return
    start_wall, start_cpu = time.monotonic(), time.process_time()
    while time.process_time() - start_cpu < THINK_S:
        pass
    walls.append(time.monotonic() - start_wall)


run(on_act=on_act, on_end=lambda seat: report(json.dumps({"walls": walls})))
