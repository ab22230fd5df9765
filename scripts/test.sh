#!/usr/bin/env bash
# The whole test suite. Uses DATABASE_URL / REDIS_URL when set (CI sets both), else SQLite
# and Kombu's filesystem broker.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
exec .venv/bin/python -m pytest "$@"
