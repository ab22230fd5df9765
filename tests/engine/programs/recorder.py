"""A well-behaved bot that logs a summary of every message it receives to standard error."""

import json
import sys
import time

SLOW = False  # tests/engine/test_botproc.py runs a copy with True (the bank test)
first = None
acts_this_game = {}
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    summary = {"type": kind, "id": message.get("id")}
    if kind == "hello":
        summary["hello"] = message
        move_ms = message["time"]["move_ms"]
    elif kind == "act":
        state = message["state"]
        summary.update(decision=message["decision"], game=state["game"], seat=state["seat"],
                       bank_ms=state["bank_ms"], keys=sorted(state), legal=message["legal"])
        if first is None:
            first = message
            summary["full"] = message
        count = acts_this_game.get(state["game"], 0)
        acts_this_game[state["game"]] = count + 1
        if SLOW and count < 2:  # computes: the clock counts CPU time, not sleep
            until = time.process_time() + (move_ms + 150) / 1000
            while time.process_time() < until:
                pass
    elif kind == "deal_end":
        summary.update(game=message["game"], deal=message["deal"],
                       hands=len(message["deal_record"]["hands"]), score=message["score"])
    elif kind == "game_end":
        summary.update(game=message["game"], winner=message["winner"], score=message["score"])
    print(json.dumps(summary), file=sys.stderr, flush=True)
    if kind == "hello":
        reply = {"id": 0, "type": "ready", "name": "recorder"}
    elif kind == "act":
        legal = message["legal"]
        action = legal[: len(state["hand"]) - 8] if message["decision"] == "discard" else legal[0]
        reply = {"id": message["id"], "action": action}
    elif kind == "match_end":
        print(json.dumps({"type": "bye"}), file=sys.stderr, flush=True)
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
