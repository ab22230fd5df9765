#!/usr/bin/env python
"""What one GET /health/ costs, with the workers' answer cached and without.

In-process (Django's test client), against the broker and database this environment
configures (REDIS_URL, DATABASE_URL; unset: the filesystem broker and SQLite under var/).
Asking the workers is one broadcast that waits its whole timeout (1 s) for replies, so
without the cache every request costs about a second of a web process; with it (the default,
KAISER_HEALTH_CACHE_SECONDS) only the database and broker checks remain. The throttle is
lifted for the measurement. Prints the median and the slowest of `--requests` requests each.
Usage:
    .venv/bin/python bench/health_cost.py [--requests 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _timed(client, requests: int, before) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(requests):
        before()
        began = time.perf_counter()
        response = client.get("/health/")
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code in (200, 503), response.status_code
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=10)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kaiser_site.settings")
    os.environ["KAISER_THROTTLE_HEALTH"] = "100000/min"
    import django

    django.setup()
    from django.core.cache import cache
    from django.test import Client

    from kaiser_site.health import WORKERS_CACHE_KEY

    client = Client()
    body = client.get("/health/").json()
    print(f"broker {body['broker'].get('transport')}, database {body['database'].get('vendor')}, "
          f"{body['workers']['count']} worker(s) answering")
    for label, before in (("workers asked each time", lambda: cache.delete(WORKERS_CACHE_KEY)),
                          ("workers' answer cached", lambda: None)):
        times = _timed(client, args.requests, before)
        print(f"{label:24}: median {statistics.median(times):7.1f} ms, "
              f"slowest {max(times):7.1f} ms ({args.requests} requests)")


if __name__ == "__main__":
    main()
