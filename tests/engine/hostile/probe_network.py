"""Tries to reach the server's database, Redis and the outside world, then exits 3."""

import json
import socket
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
for host, port in [("127.0.0.1", 5432), ("127.0.0.1", 6379), ("::1", 5432), ("1.1.1.1", 443)]:
    try:
        socket.create_connection((host, port), timeout=1).close()
        results.append(f"ESCAPED connect {host}:{port}")
    except OSError as exc:
        results.append(f"blocked connect {host}:{port}: {exc.__class__.__name__}")
try:
    socket.getaddrinfo("pypi.org", 443)
    results.append("ESCAPED dns")
except OSError as exc:
    results.append(f"blocked dns: {exc.__class__.__name__}")
print("\n".join(results), file=sys.stderr, flush=True)
sys.exit(3)
