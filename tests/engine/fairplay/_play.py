"""The legal play every fair-play probe shares: it plays the first legal action, and calls the
probe's hooks. Imported by the probe bots (each seat's own copy of the folder holds it)."""

import json
import sys


def run(on_hello=None, on_act=None, on_end=None, on_game_end=None):
    seat = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            seat = message["seat"]
            if on_hello:
                on_hello(seat)
            print(json.dumps({"id": 0, "type": "ready"}), flush=True)
        elif kind == "act":
            if on_act:
                on_act(seat, message)
            legal = message["legal"]
            action = (legal[: len(message["state"]["hand"]) - 8]
                      if message["decision"] == "discard" else legal[0])
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif kind == "game_end":
            if on_game_end:
                on_game_end(seat)
        elif kind == "match_end":
            if on_end:
                on_end(seat)
            return


def report(text):
    print(text, file=sys.stderr, flush=True)
