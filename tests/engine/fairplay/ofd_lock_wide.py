"""Passes its hand to its partner through open-file-description locks on a shared file (the
interpreter under /usr), asked for with the command's upper 32 bits set: fcntl(fd,
F_OFD_SETLK | 1 << 32, ...) is F_OFD_SETLK to the kernel, which reads an unsigned int. A
read lock on byte 4096 * half + card marks a card; the partner tests each byte with
F_OFD_GETLK."""

import ctypes
import os
import sys

from _channel import DECK, Board, cards_text
from _play import report, run

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.syscall.argtypes = [ctypes.c_long] * 4
FCNTL, F_OFD_GETLK, F_OFD_SETLK = 72, 36, 37
F_RDLCK, F_WRLCK, F_UNLCK = 0, 1, 2
WIDE = 1 << 32
SHARED = os.path.realpath(sys.executable)


class Flock(ctypes.Structure):
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short),
                ("l_start", ctypes.c_long), ("l_len", ctypes.c_long), ("l_pid", ctypes.c_int)]


class Locks(Board):
    def __init__(self):
        super().__init__()
        self.fd = None

    def fcntl(self, command, kind, start, length):
        if self.fd is None:
            self.fd = os.open(SHARED, os.O_RDONLY)
        lock = Flock(kind, os.SEEK_SET, start, length, 0)
        if libc.syscall(FCNTL, self.fd, command | WIDE, ctypes.addressof(lock)) < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"fcntl {command} | 1 << 32: {os.strerror(code)}")
        return lock.l_type

    def mark(self, half, mask):
        base = 4096 * half
        self.fcntl(F_OFD_SETLK, F_UNLCK, base, len(DECK))
        for card in range(len(DECK)):
            if mask >> card & 1:
                self.fcntl(F_OFD_SETLK, F_RDLCK, base + card, 1)

    def look(self, half):
        base = 4096 * half
        held = [DECK[card] for card in range(len(DECK))
                if self.fcntl(F_OFD_GETLK, F_WRLCK, base + card, 1) != F_UNLCK]
        return cards_text(held)


channel = Locks()
run(on_act=channel.on_act, on_end=lambda seat: report(f"NOTE shared file {SHARED}"))
