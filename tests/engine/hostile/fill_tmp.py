"""Fills its TMPDIR with files until the disk is full, reports how much it wrote, exits 3."""

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


tmp = os.environ.get("TMPDIR", "/tmp")
written = 0
chunk = b"x" * (1 << 20)
try:
    for number in range(100000):
        with open(os.path.join(tmp, f"fill{number}"), "wb") as handle:
            for _ in range(4):  # 4 MiB a file: under the file size limit
                handle.write(chunk)
                handle.flush()
                written += len(chunk)
except OSError as exc:
    print(f"stopped after {written >> 20} MiB: {exc.__class__.__name__}", file=sys.stderr,
          flush=True)
sys.exit(3)
