"""Adversarial checks of the engine's fast paths: replies read before polling (engine.botproc),
act messages from cached fragments (engine.wire), the collector paused for built-in matches
(engine.match)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.sandbox_support import RELAXED, play, processes_in, program

# --- standard error written just before a reply the engine reads without a poll ------------

# Seats of side A: each answers its first decision (passing when it may), then, while the
# slow side B thinks, logs its last words and writes, ahead of time, an illegal answer to its
# next decision. The engine finds that answer already in the pipe.
AHEAD_OF_TIME = """\
import json, sys, time
answered = False
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": 0, "type": "ready"}), flush=True)
    elif m["type"] == "act" and not answered:
        answered = True
        action = "pass" if "pass" in m["legal"] else m["legal"][0]
        print(json.dumps({"id": m["id"], "action": action}), flush=True)
        time.sleep(0.02)
        print("LAST WORDS of seat", m["state"]["seat"], file=sys.stderr, flush=True)
        print(json.dumps({"id": m["id"] + 1, "action": "XX"}), flush=True)
"""

# Side B: never passes (so side A always may), and takes 0.3 s a decision.
SLOW_BIDDER = """\
import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"id": 0, "type": "ready"}), flush=True)
    elif m["type"] == "act":
        time.sleep(0.3)
        print(json.dumps({"id": m["id"], "action": m["legal"][-1]}), flush=True)
    elif m["type"] == "match_end":
        break
"""


@pytest.mark.sandbox
@pytest.mark.timeout(60)
def test_what_a_bot_logged_before_a_faulty_reply_read_without_a_poll_is_kept(
        tmp_path: Path) -> None:
    ahead, slow = tmp_path / "ahead.py", tmp_path / "slow.py"
    ahead.write_text(AHEAD_OF_TIME)
    slow.write_text(SLOW_BIDDER)
    a, b = program(ahead, time=RELAXED), program(slow, time=RELAXED)

    replay = play(a, b)

    forfeit = replay["result"]["forfeit"]
    assert (forfeit["player"], forfeit["reason"]) == ("A", "illegal"), forfeit
    assert "not a " in forfeit["detail"]
    seat = forfeit["seat"]
    # In game 0, side A's first player sits at seat 0, its second at seat 2.
    assert f"LAST WORDS of seat {seat}" in a.players[seat // 2].stderr_text()
    assert processes_in(a.namespaces + b.namespaces) == []
