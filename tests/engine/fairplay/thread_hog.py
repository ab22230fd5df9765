"""Answers at once, but keeps busy threads burning CPU all the time: the hog of fairplay/hog.py
with threads instead of child processes. hog.txt (optional) says how many (30). The threads
hash a buffer, which releases Python's lock, so they use every core the seat may have."""

import hashlib
import os
import threading

from _play import run

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hog.txt")
COUNT = 30
if os.path.exists(SETTING):
    with open(SETTING) as handle:
        COUNT = int(handle.read().split()[0])
DATA = b"\0" * (1 << 20)


def burn():
    while True:
        hashlib.sha256(DATA).digest()


def spawn(seat):
    for _ in range(COUNT):
        threading.Thread(target=burn, daemon=True).start()


run(on_hello=spawn)
