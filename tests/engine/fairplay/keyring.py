"""Both seats of this bot store their hand as a kernel key readable by anyone, and look for the
partner's key in /proc/keys (the attack of issue 12). Reports what it could do."""

import ctypes
import os

from _play import report, run

libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL = 248, 250  # x86_64
KEYCTL_SETPERM, KEYCTL_READ = 5, 11
SESSION_KEYRING = -3
results = {"add_key": None, "partner_read": 0}


def on_act(seat, message):
    hand = ",".join(message["state"]["hand"]).encode()
    key = libc.syscall(ADD_KEY, b"user", f"hand-{seat}".encode(), hand, len(hand),
                       SESSION_KEYRING)
    if key < 0:
        results["add_key"] = os.strerror(ctypes.get_errno())
        return
    results["add_key"] = "ok"
    libc.syscall(KEYCTL, KEYCTL_SETPERM, key, 0x3F3F3F3F)
    partner = f"hand-{(seat + 2) % 4}"
    try:
        with open("/proc/keys") as handle:
            listing = handle.read()
    except OSError:
        listing = ""
    for row in listing.splitlines():
        if partner in row:
            buffer = ctypes.create_string_buffer(256)
            if libc.syscall(KEYCTL, KEYCTL_READ, int(row.split()[0], 16), buffer, 256) > 0:
                results["partner_read"] += 1


run(on_act=on_act,
    on_end=lambda seat: report(f"add_key: {results['add_key']}; "
                               f"partner hands read: {results['partner_read']}"))
