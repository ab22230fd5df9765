"""Passes its hand to its partner through socket cookies: SO_COOKIE numbers come from one
counter for the whole host (per CPU, in batches of 4096), so a seat that makes k sockets moves
the number its partner's next socket gets by k. Both seats run on CPU 0 to share a batch."""

import socket
import struct

from _channel import Lockstep, on_cpu_zero
from _play import report, run

SO_COOKIE = 57


def cookie():
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as fresh:
        return struct.unpack("Q", fresh.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8))[0]


def bump(count):
    for _ in range(count):
        cookie()


channel = Lockstep(cookie, bump, data_bits=8, modulus=4096)


run(on_hello=on_cpu_zero, on_act=channel.on_act, on_end=lambda seat: report(channel.summary()))
