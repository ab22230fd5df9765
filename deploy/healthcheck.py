"""The web container's healthcheck: GET /health/ from gunicorn with a Host it accepts.

Django answers 400 (DisallowedHost) to a Host not in ALLOWED_HOSTS, so a plain request to
127.0.0.1 fails as soon as the operator sets the site's real name. This sends the first name
ALLOWED_HOSTS allows (read the way kaiser_site/settings.py reads it), without loading Django:
it runs every few seconds.

The web container is healthy when it answers and reaches the database and the broker: a 200,
or a 503 that blames only the workers (none of them can sandbox: their problem, shown in
/health/, not a reason to call the web server unhealthy), or a 429 (it answered; /health/ is
rate-limited per address). Anything else, or no answer, is unhealthy.
"""

from __future__ import annotations

import http.client
import json
import os
import sys

DEFAULT_HOSTS = "localhost"


def allowed_host(raw: str | None) -> str:
    names = [item.strip() for item in (raw if raw is not None else DEFAULT_HOSTS).split(",")]
    for name in names:
        if not name or name == "*":
            continue
        return name.lstrip(".")  # ".example.org" allows example.org itself too
    return "localhost"  # "*" (or nothing usable): any name is accepted


def healthy(status: int, body: str) -> bool:
    if status in (200, 429):
        return True
    if status != 503:
        return False
    try:
        report = json.loads(body)
        return bool(report["database"]["ok"] and report["broker"]["ok"])
    except (ValueError, KeyError, TypeError):
        return False


def main() -> int:
    port = int(os.environ.get("PORT", "8000"))
    host = allowed_host(os.environ.get("ALLOWED_HOSTS"))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=8)
    try:
        conn.request("GET", "/health/", headers={"Host": host})
        response = conn.getresponse()
        body = response.read(100_000).decode("utf-8", "replace")
    except OSError as error:
        print(f"unhealthy: {error}")
        return 1
    print(response.status, body[:2000])
    return 0 if healthy(response.status, body) else 1


if __name__ == "__main__":
    sys.exit(main())
