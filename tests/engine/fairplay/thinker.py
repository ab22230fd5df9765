"""An honest bot that thinks: it burns THINK_S seconds of CPU on every decision (0.25 s), then
plays legally. Reports the wall time of each of its moves (from the act message's arrival)."""

import json
import os
import time

from _play import report, run

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "think_s.txt")
THINK_S = 0.25
if os.path.exists(SETTING):
    with open(SETTING) as handle:
        THINK_S = float(handle.read())
walls = []


def on_act(seat, message):
    start_wall, start_cpu = time.monotonic(), time.process_time()
    while time.process_time() - start_cpu < THINK_S:
        pass
    walls.append(time.monotonic() - start_wall)


run(on_act=on_act, on_end=lambda seat: report(json.dumps({"walls": walls})))
