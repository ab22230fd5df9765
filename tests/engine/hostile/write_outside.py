"""Tries to write everywhere but its TMPDIR, reports, exits 3."""

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


results = []
for path in ["/bot/planted.txt", "/planted.txt", "/usr/planted.txt", "/dev/planted.txt",
             "/dev/shm/planted.txt", "/etc/planted.txt", "/proc/planted.txt",
             os.path.join(os.environ.get("TMPDIR", "/tmp"), "allowed.txt")]:
    try:
        with open(path, "w") as handle:
            handle.write("planted")
        results.append(f"WROTE {path}")
    except OSError as exc:
        results.append(f"blocked {path}: {exc.__class__.__name__}")
print("\n".join(results), file=sys.stderr, flush=True)
sys.exit(3)
