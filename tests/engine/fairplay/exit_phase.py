"""A seat that leaves its table at a chosen moment, and the next table's seat that reads it
(issue 41, "the next table hears the last one leave"). One program for a side, in Kaiser or
Sergeant Major; it plays the first legal action.

As a sender (every game but the match's last): deal 0's deal_end shows every hand; at
match_end the seat takes a symbol of LEVELS from those hands, says on standard error

    EXIT game=G seat=S symbol=X

then sleeps until the wall clock's phase (time.time() modulo LEVELS x STEP_MS) is
X x STEP_MS and exits. Every hand is shown, so the side's two Kaiser seats send the same
symbol, and the next game (the same deals, or not) cannot know it from its own cards.
As a receiver (every game but the first): its first statement reads the wall clock; the
phase then, less OFFSET_MS (how long after an exit the next seat starts, where it waits for
the exit), is the symbol it guesses:

    READ game=G seat=S got=X phase_ms=P

The test holds each READ against the EXIT of the game before. So that the next table has
booted by the time it leaves (the engine boots it while this one plays), a sender holds its
first move back for HOLD_MS, and for a random part of a cycle more: the games' lengths would
otherwise be alike, and each table's start fall at a phase that follows from the last one's
(the boundaries of a match would not be independent tries). exit_phase.txt (optional):
"LEVELS STEP_MS OFFSET_MS HOLD_MS"; defaults 16 8 0 0.
"""

import time

FIRST_STATEMENT = time.time()  # before anything else: the moment this table let the seat in

import json  # noqa: E402  (after the clock's read, on purpose)
import os  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import zlib  # noqa: E402

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exit_phase.txt")
LEVELS, STEP_MS, OFFSET_MS, HOLD_MS = 16, 8.0, 0.0, 0.0
if os.path.exists(SETTING):
    with open(SETTING) as handle:
        words = handle.read().split()
    LEVELS, STEP_MS, OFFSET_MS, HOLD_MS = int(words[0]), *map(float, words[1:4])
CYCLE_MS = LEVELS * STEP_MS


def report(text):
    print(text, file=sys.stderr, flush=True)


def symbol_of(hands):
    """A symbol of the deal's hands, whatever seat holds which (Kaiser's second game of a pair
    moves the players, not the cards)."""
    canonical = json.dumps(sorted(sorted(hand) for hand in hands))
    return zlib.crc32(canonical.encode()) % LEVELS


def guess():
    phase = (FIRST_STATEMENT * 1000 - OFFSET_MS) % CYCLE_MS
    return round(phase / STEP_MS) % LEVELS, phase


def leave_at(symbol):
    """Sleep until the wall clock's phase is symbol x STEP_MS, then exit at once."""
    now_ms = time.time() * 1000
    wait_ms = (symbol * STEP_MS - now_ms) % CYCLE_MS
    time.sleep(wait_ms / 1000)
    os._exit(0)


def action(message):
    legal = message["legal"]
    if "count" in message:  # Sergeant Major's give, return and discard: a list of `count`
        return legal[: message["count"]]
    if message["decision"] == "discard":  # Kaiser's: back to 8 cards
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


def main():
    seat = game = games = sent = None
    held = True  # this seat holds nothing back (set at hello)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            seat, game = message["seat"], message["match"]["game"]
            games = message["match"]["games"]
            # One seat of the side holds (Kaiser's second seat is seat + 2; Kaiser's hello
            # names no game): the next table boots meanwhile.
            held = game == games - 1 or (message.get("game") is None and seat >= 2)
            if game > 0:
                got, phase = guess()
                report(f"READ game={game} seat={seat} got={got} phase_ms={phase:.2f}")
            ready = {"id": 0, "type": "ready"}
            if "game" in message:
                ready["game"] = message["game"]
            print(json.dumps(ready), flush=True)
        elif kind == "act":
            if not held:
                held = True
                time.sleep((HOLD_MS + random.uniform(0, CYCLE_MS)) / 1000)
            print(json.dumps({"id": message["id"], "action": action(message)}), flush=True)
        elif kind == "deal_end" and message["deal"] == 0:
            sent = symbol_of(message["deal_record"]["hands"])
        elif kind == "match_end":
            if sent is not None and game < games - 1:
                report(f"EXIT game={game} seat={seat} symbol={sent}")
                leave_at(sent)
            return


main()
