"""Answers at once, but keeps busy child processes burning CPU all the time (as many as the
environment variable's count, 30 by default): the attack on the opponent's clock."""

import os

from _play import run

CHILDREN = 30


def on_hello(seat):
    for _ in range(CHILDREN):
        try:
            if os.fork() == 0:
                while True:
                    pass
        except OSError:
            break


run(on_hello=on_hello)
