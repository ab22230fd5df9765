#!/bin/sh
set -eu
chown redis:redis /data
if [ "${1:-}" = redis-server ]; then
  shift
  exec setpriv --reuid redis --regid redis --init-groups -- redis-server --protected-mode no "$@"
fi
exec "$@"
