"""Looks for the server's files, settings and secrets, reports what it sees, exits 3."""

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


SECRET = "kaiser-" + "secret-token"  # built at run time: this file must not contain it
seen = []
for path in ["/etc/passwd", "/etc/shadow", "/etc/hostname", "/work", "/root", "/home",
             "/var/lib/postgresql", "/var/run", "/run", "/sys", "/srv", "/opt", "/media"]:
    if os.path.isfile(path) or os.path.isdir(path) and os.listdir(path):  # empty: nothing seen
        seen.append(f"SEES {path}")
for key, value in os.environ.items():
    if SECRET in value or key not in {"PATH", "HOME", "TMPDIR", "LANG", "PWD", "SHLVL", "_",
                                      "NODE_OPTIONS",
                                      "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}:
        seen.append(f"SEES env {key}")
for root, dirs, files in os.walk("/"):
    if root == "/":
        print("root holds: " + " ".join(sorted(dirs + files)), file=sys.stderr)
        dirs[:] = [d for d in dirs if d not in ("proc", "usr", "sys", "dev")]
    for name in files:
        path = os.path.join(root, name)
        try:
            with open(path, "rb") as handle:
                if SECRET.encode() in handle.read(1 << 20):
                    seen.append(f"SEES secret in {path}")
        except OSError:
            pass
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if SECRET.encode() in handle.read():
                    seen.append(f"SEES secret in /proc/{pid}/environ")
        except OSError:
            pass
print("\n".join(seen) or "sees nothing of the server", file=sys.stderr, flush=True)
sys.exit(3)
