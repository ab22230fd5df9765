"""A Sergeant Major seat that spells its dealt hand in its think time (issue 41): before each
reply it sleeps STEP_MS x a 4-bit symbol, a piece of its hand as dealt scrambled with a pad of
the game, the hand and the move (so every symbol is uniform and no feature of the hand shows),
and it plays the first legal action. Each seat of Sergeant Major plays for itself, so no
partner reads it here; it is what a colluding bot at the same table could read, and what the
fair-play detector must flag in any game (tests/engine/test_fairplay_channel.py)."""

import json
import sys
import time
import zlib

STEP_MS = 4.0


def symbol(hand, game, deal, move):
    return zlib.crc32(f"{','.join(hand)}/{game}/{deal}/{move}".encode()) & 15


def action(message):
    legal, decision = message["legal"], message["decision"]
    if decision in ("give", "discard"):
        return legal[: message["count"]]
    if decision == "return":
        return legal  # forced: the rules name the cards that go back
    return legal[0]


def main():
    dealt, moves = {}, {}
    for line in sys.stdin:
        arrived = time.perf_counter()
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"id": 0, "type": "ready", "game": "sergeant-major",
                              "name": "sm-sleeper"}), flush=True)
        elif message["type"] == "act":
            state = message["state"]
            key = (state["game"], state["deal"])
            hand = dealt.setdefault(key, sorted(state["hand"]))
            moves[key] = moves.get(key, -1) + 1
            hold = symbol(hand, *key, moves[key]) * STEP_MS / 1000
            time.sleep(max(0.0, arrived + hold - time.perf_counter()))
            print(json.dumps({"id": message["id"], "action": action(message)}), flush=True)
        elif message["type"] == "match_end":
            break


main()
