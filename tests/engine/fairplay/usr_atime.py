"""Passes its hand to its partner through the access times of files in the seats' shared
/usr (issue 31): a seat reads one byte of a file for each card it holds, which on a relatime
mount moves that file's access time past its change time the first time; its partner stats
the files of its half and takes those read for the hand. Every deal uses files never used
before (the Python library's least imported corners), so each file carries one bit once."""

import os
import time

from _channel import DECK, Board, cards_text
from _play import report, run

CORNERS = ("lib2to3", "email", "pydoc_data", "xml", "distutils", "ensurepip", "turtledemo",
           "idlelib", "tkinter", "unittest", "sqlite3", "curses", "dbm", "wsgiref")


def candidates():
    found = []
    for corner in CORNERS:
        for folder, _, names in os.walk(os.path.join("/usr/lib/python3.11", corner)):
            if "__pycache__" not in folder:
                found += [os.path.join(folder, name) for name in names if name.endswith(".py")]
    return sorted(found)


class AccessTimes(Board):
    def __init__(self):
        super().__init__()
        self.files = candidates()

    def file(self, half, card):
        index = (self.deals.index * 2 + half) * len(DECK) + card
        if index >= len(self.files):
            raise OSError(f"only {len(self.files)} files to mark in /usr")
        return self.files[index]

    def mark(self, half, mask):
        for card in range(len(DECK)):
            if mask >> card & 1:
                with open(self.file(half, card), "rb") as handle:
                    handle.read(1)

    def look(self, half):
        read = []
        for card in range(len(DECK)):
            st = os.stat(self.file(half, card))
            now = time.time_ns()  # an access time pinned years ahead marks nothing
            if st.st_ctime_ns <= st.st_atime_ns < now + 86_400 * 10**9:
                read.append(DECK[card])
        return cards_text(read)


channel = AccessTimes()
run(on_act=channel.on_act, on_end=lambda seat: report(f"NOTE {len(channel.files)} files"))
