"""Passes its hand to its partner through pipe inode numbers: every pipe (and socket) takes
its inode number from one counter of the host's kernel (per CPU, in batches of 1024), so a
seat that makes k pipes moves its partner's next number by k. Both seats run on CPU 0."""

import os

from _channel import Lockstep, on_cpu_zero
from _play import report, run


def pipe_inode():
    read, write = os.pipe()
    try:
        return os.fstat(read).st_ino
    finally:
        os.close(read)
        os.close(write)


def bump(count):
    for _ in range(count):
        pipe_inode()


channel = Lockstep(pipe_inode, bump, data_bits=4, modulus=1024, scale=2)


run(on_hello=on_cpu_zero, on_act=channel.on_act, on_end=lambda seat: report(channel.summary()))
