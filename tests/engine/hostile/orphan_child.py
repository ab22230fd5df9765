"""Starts a daemon grandchild (double fork, new session), then exits mid-deal."""

import json
import os
import sys
import time


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        while True:
            time.sleep(0.05)
    os._exit(0)
os.wait()
acts = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply(message, type="ready")
    elif message["type"] == "act":
        acts += 1
        if acts == 2:
            sys.exit(0)
        reply(message, action=play(message))
