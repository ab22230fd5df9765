"""Passes its hand to its partner through pidfd inode numbers: a pidfd's inode number is the
process's number in one counter of the host's kernel that every new process or thread moves
(a pidfd of the seat's own pid keeps its number; a new child's shows the counter). A seat that
starts k threads moves its partner's next number by k."""

import os
import threading

from _channel import Lockstep
from _play import report, run


def pidfd_inode():
    child = os.fork()
    if child == 0:
        os._exit(0)
    try:
        handle = os.pidfd_open(child)
        try:
            return os.fstat(handle).st_ino
        finally:
            os.close(handle)
    finally:
        os.waitpid(child, 0)


def bump(count):
    for _ in range(count):
        thread = threading.Thread(target=int)
        thread.start()
        thread.join()


channel = Lockstep(pidfd_inode, bump, data_bits=6, scale=8)


def on_hello(seat):
    try:
        report(f"NOTE own pidfd inode {os.fstat(os.pidfd_open(os.getpid())).st_ino}")
    except OSError as error:
        report(f"NOTE pidfd_open: {error}")


run(on_hello=on_hello, on_act=channel.on_act, on_end=lambda seat: report(channel.summary()))
