"""The web container's healthcheck: GET /health/ from gunicorn with a Host it accepts.

Django answers 400 (DisallowedHost) to a Host not in ALLOWED_HOSTS, so a plain request to
127.0.0.1 fails as soon as the operator sets the site's real name. This sends the first name
ALLOWED_HOSTS allows (read the way kaiser_site/settings.py reads it), without loading Django:
it runs every 30 seconds. Healthy means HTTP 200 ("ok", or "degraded" while no worker answers);
503 (database or broker down) and anything else is unhealthy.
"""

from __future__ import annotations

import http.client
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


def main() -> int:
    port = int(os.environ.get("PORT", "8000"))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=8)
    try:
        conn.request(
            "GET", "/health/", headers={"Host": allowed_host(os.environ.get("ALLOWED_HOSTS"))}
        )
        response = conn.getresponse()
        body = response.read(2000).decode("utf-8", "replace")
    except OSError as error:
        print(f"unhealthy: {error}")
        return 1
    print(response.status, body)
    return 0 if response.status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
