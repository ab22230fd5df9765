#!/usr/bin/env bash
# The whole test suite. Uses DATABASE_URL / REDIS_URL when set (CI sets both), else SQLite
# and Kombu's filesystem broker. Runs on KAISER_TEST_WORKERS pytest-xdist workers (default 3:
# most of the suite's time is spent waiting on bot processes, workers and browsers, so more
# workers than cores pays); each has its own test database and Redis database
# (tests/conftest.py). `-n 0` after it runs in this one process.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
exec .venv/bin/python -m pytest -n "${KAISER_TEST_WORKERS:-3}" --dist worksteal "$@"
