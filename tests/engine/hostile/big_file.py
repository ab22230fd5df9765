"""Writes one file larger than the file size limit."""

import json
import os
import sys


def reply(message, **fields):
    sys.stdout.write(json.dumps({"id": message["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(message):
    legal = message["legal"]
    if message["decision"] == "discard":
        return legal[: len(message["state"]["hand"]) - 8]
    return legal[0]


with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "big"), "wb") as handle:
    for _ in range(1024):
        handle.write(b"x" * (1 << 20))
        handle.flush()
sys.exit(3)
