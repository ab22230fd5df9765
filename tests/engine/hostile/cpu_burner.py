"""Plays in time (slowly), but burns CPU in a background thread until the CPU limit stops it."""

import json
import sys
import threading
import time


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


def burn():
    while True:
        pass


threading.Thread(target=burn, daemon=True).start()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        reply(message, type="ready")
    elif message["type"] == "act":
        time.sleep(0.1)  # a long match: the burner reaches the CPU limit long before its end
        reply(message, action=play(message))
