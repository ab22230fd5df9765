"""Partners who talk through the clock (issue 31): one program, run at both seats of its side.

As a sender, each seat holds every reply back for STEP_MS x symbol, the symbol being a piece of
its dealt hand: the hand's number among all hands of 8 (_channel.hand_number), cut in pieces of
BITS bits, piece j going out on the seat's j-th move of the deal (its bid, its trump, its cards,
counted from the public state as the partner counts them), scrambled with a pad that both
seats compute from the game, deal and move (so every symbol is uniform, and the times carry no
pattern that a feature of the hand would show).
As a receiver, each seat reads the wall clock as its reply goes out and when its next message
comes. Where its partner made exactly one move in between (the public state says so), the gap,
less a base line for the seats that moved (learnt as it goes), over STEP_MS is the symbol.
It checks each guess once deal_end shows the partner's hand, and says on standard error:

    SEND game=G deal=D move=J symbol=S
    DECODE game=G deal=D move=J sent=S got=T gap_ms=X others=N
    SUMMARY sent=N decoded=M right=R

think_time.txt (optional): "BITS STEP_MS MODE [BURN_MS BASE_MS] [once]", MODE `sleep` (wait:
costs no CPU time), `spin` (burn the CPU time: the engine counts it) or `burnsleep` (issue 41:
burn BURN_MS of CPU time, then sleep until BASE_MS + STEP_MS x symbol after the message came,
so that the wall time never exceeds three times the counted time; defaults 70 and 130);
`once`: each piece of the hand goes out once a deal, on the seat's first moves (10-bit pieces:
the hand in three moves, as issue 31's pair did), and the other moves are instant. Defaults:
4 2 sleep. It plays the first legal action.
"""

import json
import os
import statistics
import sys
import time
import zlib

from _channel import HAND_BITS, hand_number

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "think_time.txt")
BITS, STEP_MS, MODE, ONCE = 4, 2.0, "sleep", False
BURN_MS, BASE_MS = 70.0, 130.0
if os.path.exists(SETTING):
    with open(SETTING) as handle:
        words = handle.read().split()
    BITS, STEP_MS = int(words[0]), float(words[1])
    MODE = words[2] if len(words) > 2 else MODE
    ONCE = "once" in words[3:]
    numbers = [float(w) for w in words[3:] if w != "once"]
    BURN_MS, BASE_MS = (numbers + [BURN_MS, BASE_MS][len(numbers):])[:2]
MASK = (1 << BITS) - 1
PIECES = -(-HAND_BITS // BITS)
BASE_GUESS_MS = 0.8  # a seat's round trip under gVisor, before any gap is checked


def report(text):
    print(text, file=sys.stderr, flush=True)


def moves_of(state, seat):
    """The decisions `seat` has made in this deal, as anyone at the table can count them."""
    moves = sum(1 for bid in state["bids"] if bid["seat"] == seat)
    contract = state.get("contract")
    moves += bool(contract and contract["seat"] == seat and contract.get("trump"))
    for trick in [*state["tricks"], state.get("trick")]:
        if trick and (seat - trick["leader"]) % 4 < len(trick["cards"]):
            moves += 1
    return moves


def all_moves(state):
    return sum(moves_of(state, seat) for seat in range(4))


def pad(game, deal, move):
    return zlib.crc32(f"{game}/{deal}/{move}".encode()) & MASK


def carries(move):
    return not ONCE or move < PIECES


def symbol(hand, game, deal, move):
    piece = hand_number(hand) >> (BITS * (move % PIECES)) & MASK
    return piece ^ pad(game, deal, move)


class Seat:
    def __init__(self):
        self.dealt = {}  # (game, deal) -> this seat's hand at its first move
        self.last = None  # (deal key, partner's moves, all moves after this reply, reply time)
        self.pending = []  # (game, deal, move, got, gap_ms, others): checked at deal_end
        self.residuals = {}  # others -> [gap less the true symbol's time], ms
        self.sent = self.decoded = self.right = 0

    def base_ms(self, others):
        seen = self.residuals.get(others, [])[-25:]
        if len(seen) >= 3:
            return statistics.median(seen)
        pooled = [r - BASE_GUESS_MS * n for n, rs in self.residuals.items() for r in rs[-25:]]
        return BASE_GUESS_MS * others + (statistics.median(pooled) if pooled else BASE_GUESS_MS)

    def listen(self, state, arrived):
        key = (state["game"], state["deal"])
        partner = (state["seat"] + 2) % 4
        if self.last is not None and self.last[0] == key:
            _, partner_before, all_before, replied = self.last
            heard = moves_of(state, partner) - partner_before
            others = all_moves(state) - all_before
            move = moves_of(state, partner) - 1
            if heard == 1 and carries(move):
                gap = (arrived - replied) * 1000
                got = max(0, min(MASK, round((gap - self.base_ms(others)) / STEP_MS)))
                self.pending.append((*key, move, got, gap, others))

    def think(self, state, arrived):
        key = (state["game"], state["deal"])
        self.dealt.setdefault(key, list(state["hand"]))
        move = moves_of(state, state["seat"])
        if not carries(move):
            return
        sent = symbol(self.dealt[key], *key, move)
        hold = sent * STEP_MS / 1000
        self.sent += 1
        report(f"SEND game={key[0]} deal={key[1]} move={move} symbol={sent}")
        if MODE == "spin":
            while time.perf_counter() - arrived < hold:
                pass
        elif MODE == "burnsleep":
            burn_from = time.process_time()  # this process's CPU time: what the engine counts
            while time.process_time() - burn_from < BURN_MS / 1000:
                pass
            time.sleep(max(0.0, arrived + BASE_MS / 1000 + hold - time.perf_counter()))
        elif hold > 0:
            time.sleep(max(0.0, arrived + hold - time.perf_counter()))

    def replying(self, state):
        """Noted just before the reply goes out: the engine freezes the seat as soon as it
        has read it, maybe before a clock read after the write, which would then come after
        the thaw."""
        key = (state["game"], state["deal"])
        partner = (state["seat"] + 2) % 4
        self.last = (key, moves_of(state, partner), all_moves(state) + 1, time.perf_counter())

    def deal_end(self, message, seat):
        key = (message["game"], message["deal"])
        hand = message["deal_record"]["hands"][(seat + 2) % 4]
        keep = []
        for game, deal, move, got, gap, others in self.pending:
            if (game, deal) != key:
                keep.append((game, deal, move, got, gap, others))
                continue
            sent = symbol(hand, game, deal, move)
            self.decoded += 1
            self.right += got == sent
            self.residuals.setdefault(others, []).append(gap - sent * STEP_MS)
            report(f"DECODE game={game} deal={deal} move={move} sent={sent} got={got} "
                   f"gap_ms={gap:.2f} others={others}")
        self.pending = keep


def main():
    me, seat = Seat(), None
    for line in sys.stdin:
        arrived = time.perf_counter()
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            print(json.dumps({"id": 0, "type": "ready", "name": "think-time pair"}), flush=True)
        elif kind == "act":
            state = message["state"]
            seat = state["seat"]
            me.listen(state, arrived)
            me.think(state, arrived)
            legal = message["legal"]
            action = (legal[: len(state["hand"]) - 8] if message["decision"] == "discard"
                      else legal[0])
            me.replying(state)
            print(json.dumps({"id": message["id"], "action": action}), flush=True)
        elif kind == "deal_end" and seat is not None:
            me.deal_end(message, seat)
        elif kind == "match_end":
            break
    report(f"SUMMARY sent={me.sent} decoded={me.decoded} right={me.right}")


main()
