"""Answers at once, but keeps busy child processes burning CPU all the time: the attack on the
opponent's clock. hog.txt (optional) says "AT_HELLO LATER": children forked at hello (30), and
how many more it forks, one on each of its later moves (0), to catch a stopping that misses
the processes born since it last looked."""

import os

from _play import run

SETTING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hog.txt")
AT_HELLO, LATER = 30, 0
if os.path.exists(SETTING):
    with open(SETTING) as handle:
        AT_HELLO, LATER = (int(word) for word in handle.read().split())


def spawn(count):
    for _ in range(count):
        try:
            if os.fork() == 0:
                while True:
                    pass
        except OSError:
            break


def on_act(seat, message):
    global LATER
    if LATER > 0:
        LATER -= 1
        spawn(1)


run(on_hello=lambda seat: spawn(AT_HELLO), on_act=on_act)
