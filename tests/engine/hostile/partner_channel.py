"""Tries to talk to its partner (its own program in the other sandbox) outside the game:
a file in /tmp, an abstract unix socket. Reports on standard error whether anything from the
partner arrived; plays legally either way."""

import contextlib
import json
import os
import socket
import sys
import time

seat = None
acts = 0
found = []
server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)


def listen(my_seat):
    server.bind(f"\0kaiser-channel-{my_seat}")
    server.setblocking(False)
    with open(f"/tmp/channel-{my_seat}", "w") as handle:
        handle.write("here")


def probe(my_seat):
    partner = (my_seat + 2) % 4
    if os.path.exists(f"/tmp/channel-{partner}"):
        found.append("file")
    with contextlib.suppress(OSError):
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(
            b"hi", f"\0kaiser-channel-{partner}")
    time.sleep(0.02)
    try:
        server.recv(16)
        found.append("socket")
    except OSError:
        pass


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        seat = message["seat"]
        listen(seat)
        print(json.dumps({"id": 0, "type": "ready"}), flush=True)
    elif message["type"] == "act":
        acts += 1
        if acts <= 10:  # both partners are up by then
            probe(seat)
        legal = message["legal"]
        action = legal[: len(message["state"]["hand"]) - 8] if message["decision"] == "discard" \
            else legal[0]
        print(json.dumps({"id": message["id"], "action": action}), flush=True)
    elif message["type"] == "match_end":
        print("channels: " + (", ".join(sorted(set(found))) or "none"), file=sys.stderr,
              flush=True)
        break
