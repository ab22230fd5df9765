#!/usr/bin/env bash
# The README's first command: the whole site on this machine. Web server, Celery workers (matches,
# strict-time matches, games against people) and Celery beat together; one Ctrl-C stops all.
# With no configuration it uses SQLite and Kombu's filesystem broker under var/ (no server
# needed); with REDIS_URL / DATABASE_URL set it uses them.
set -euo pipefail
export KAISER_WITH_BROWSER="${KAISER_WITH_BROWSER:-0}"  # the browser is only for page tests
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
export DEBUG="${DEBUG:-1}"
if [ "$(id -u)" != "0" ] && [ -z "${KAISER_SANDBOX_ALLOW_RLIMIT:-}" ]; then
  # Per-seat cgroups and seat uids need root: a developer's run plays one process a seat with
  # per-process limits instead (a production worker refuses to, docs/sandbox.md).
  echo "run.sh: not root, so bots play without per-seat cgroups (KAISER_SANDBOX_ALLOW_RLIMIT=1)" >&2
  export KAISER_SANDBOX_ALLOW_RLIMIT=1
fi
if { [ "$(id -u)" != "0" ] || ! command -v runsc >/dev/null 2>&1; } \
    && [ -z "${KAISER_SANDBOX_ALLOW_SHARED_KERNEL:-}" ]; then
  # gVisor (a kernel a seat) needs runsc and root: without them a developer's run plays on
  # this machine's kernel, which partners could signal through (a server refuses to).
  echo "run.sh: no gVisor here (runsc, root), so the seats share this machine's kernel (KAISER_SANDBOX_ALLOW_SHARED_KERNEL=1)" >&2
  export KAISER_SANDBOX_ALLOW_SHARED_KERNEL=1
fi

.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py seed_demo
case "${DEBUG,,}" in
  0|false|no|off) .venv/bin/python manage.py collectstatic --noinput -v 0 ;;
esac

cat <<BANNER
Kaiser Arena: http://${KAISER_HOST:-127.0.0.1}:${PORT:-8000}/   API docs: /api/docs/   health: /health/
Demo users ada, grace, alan (password kaiser-demo). Broker: ${REDIS_URL:-files under ${KAISER_VAR_DIR:-var}/broker}.
BANNER
exec .venv/bin/python scripts/devserver.py
