"""Creates empty files in /tmp until the file system refuses, then goes on playing as if
nothing happened (empty files cost no space, only the kernel's memory)."""

import os

from _play import report, run

made = 0


def on_hello(seat):
    global made
    try:
        while made < 2_000_000:
            os.close(os.open(f"/tmp/f{made}", os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
    except OSError as error:
        report(f"stopped after {made} files: {os.strerror(error.errno)}")


run(on_hello=on_hello)
