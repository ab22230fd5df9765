"""Passes its hand to its partner through the page cache of a big shared file under /usr
(the first of page_cache.txt's files that the seat can see): a seat reads the pages of its
cards, after evicting all 32 of its half with posix_fadvise(DONTNEED); its partner times a
read of each and takes the 8 fastest (cached) for the hand. Each deal uses pages not touched
before, so a kernel that cannot evict still carries the first use of each."""

import os
import time

from _channel import DECK, HAND, Board, cards_text
from _play import report, run

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page_cache.txt")
PAGE = 4096
with open(SETTING) as handle:  # "STRIDE FILE...": the first file this seat can see
    STRIDE, *CANDIDATES = handle.read().split()
STRIDE = int(STRIDE)  # apart enough that the kernel's read-ahead never joins two
SHARED = next((path for path in CANDIDATES if os.path.isfile(path)), CANDIDATES[-1])


class Pages(Board):
    def __init__(self):
        super().__init__()
        self.fd = None
        self.gaps = []  # how much slower the 9th fastest page was than the 8th

    def offsets(self, half):
        if self.fd is None:
            self.fd = os.open(SHARED, os.O_RDONLY)
            os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)
            self.size = os.fstat(self.fd).st_size
        first = (self.deals.index * 2 + half) * len(DECK)
        return [(first + card) * STRIDE % (self.size - PAGE) // PAGE * PAGE
                for card in range(len(DECK))]

    def mark(self, half, mask):
        offsets = self.offsets(half)
        for offset in offsets:
            os.posix_fadvise(self.fd, offset, PAGE, os.POSIX_FADV_DONTNEED)
        for card, offset in enumerate(offsets):
            if mask >> card & 1:
                os.pread(self.fd, 1, offset)

    def look(self, half):
        times = []
        for card, offset in enumerate(self.offsets(half)):
            start = time.perf_counter_ns()
            os.pread(self.fd, 1, offset)
            times.append((time.perf_counter_ns() - start, card))
        times.sort()
        self.gaps.append(times[HAND][0] / max(1, times[HAND - 1][0]))
        return cards_text(DECK[card] for _, card in times[:HAND])


channel = Pages()


def summary(seat):
    gaps = sorted(channel.gaps)
    middle = f"{gaps[len(gaps) // 2]:.1f}" if gaps else "-"
    report(f"NOTE {SHARED}: 9th fastest page / 8th fastest, median {middle}")


run(on_act=channel.on_act, on_end=summary)
