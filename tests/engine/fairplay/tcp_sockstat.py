"""Passes its hand to its partner through the host's count of TCP sockets: the "alloc" of
/proc/net/sockstat counts every TCP socket of the host, whatever its network namespace. A
seat says k - 1 by holding 4k TCP sockets (in helper processes, as one process may hold only
256 files) until its partner has read them; its partner reads the count on its own turn.

With no /proc/net/sockstat (another kernel) the probe says so and passes nothing."""

import os
import socket

from _channel import Lockstep
from _play import report, run

SCALE = 4  # the rest of the host opens and closes a few TCP sockets too: a unit is 4
HOLDERS, HOLD_MAX = 11, 200  # a process may hold 256 files, some taken


def tcp_sockets():
    with open("/proc/net/sockstat") as handle:
        for line in handle:
            if line.startswith("TCP:"):
                words = line.split()
                return int(words[words.index("alloc") + 1])
    raise OSError("no TCP line in /proc/net/sockstat")


def holder(commands, answers):
    held = []
    for line in commands:
        want = int(line)
        while len(held) < want:
            held.append(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        while len(held) > want:
            held.pop().close()
        answers.write("ok\n")
        answers.flush()


class Holders:
    def __init__(self):
        self.pipes = []
        for _ in range(HOLDERS):
            down, up = os.pipe(), os.pipe()
            if os.fork() == 0:
                try:
                    os.close(down[1])
                    os.close(up[0])
                    holder(os.fdopen(down[0]), os.fdopen(up[1], "w"))
                finally:
                    os._exit(0)
            os.close(down[0])
            os.close(up[1])
            self.pipes.append((os.fdopen(down[1], "w"), os.fdopen(up[0])))

    def hold(self, count):
        for commands, _ in self.pipes:
            share = min(count, HOLD_MAX)
            count -= share
            commands.write(f"{share}\n")
            commands.flush()
        for _, answers in self.pipes:
            answers.readline()


class Levels(Lockstep):
    """The Lockstep's symbols as a level, not a growth: a seat holds its symbol's sockets
    until its partner has moved (and so read them), then lets them go and maybe holds the
    next. On its turn a seat reads the count: the change since its last look, less its own
    change, is its partner's."""

    def __init__(self):
        super().__init__(tcp_sockets, None, data_bits=6, scale=SCALE, read_cost=0)
        self.holders = None
        self.own = 0
        self.partner = 0  # the partner's level, as last read

    def act(self, state):
        decisions = self.partner_decisions(state)
        value = self.read()
        if self.holders is None:
            self.holders = Holders()
        if self.last is not None:
            counter, own_then = self.last
            level = self.partner + value - counter - (self.own - own_then)
            units = max(0, round(level / SCALE))
            self.partner = units * SCALE
            if 0 < units <= 1 << self.symbol_bits:
                self.take(units - 1)
        self.last = (value, self.own)
        if decisions > self.sent_at:  # the partner has read the level: the next one
            symbol = self.next_symbol(decisions)
            self.own = 0 if symbol is None else (1 + symbol) * SCALE
            self.holders.hold(self.own)


channel = Levels()


def on_hello(seat):
    try:
        report(f"NOTE TCP sockets on the host: {tcp_sockets()}")
    except OSError as error:
        report(f"NOTE /proc/net/sockstat: {error}")


run(on_hello=on_hello, on_act=channel.on_act, on_end=lambda seat: report(channel.summary()))
