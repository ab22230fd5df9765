#!/bin/sh
# First start: a cluster owned by POSTGRES_USER with POSTGRES_PASSWORD (scram), database
# POSTGRES_DB, accepting password logins from the network. Then postgres as user postgres.
set -eu
as_postgres() { setpriv --reuid postgres --regid postgres --init-groups -- "$@"; }
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
  user="${POSTGRES_USER:-postgres}"
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.auto.conf"
  db="${POSTGRES_DB:-$user}"
  if [ "$db" != postgres ]; then
    as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""
    as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
[ "${1:-}" = postgres ] && exec setpriv --reuid postgres --regid postgres --init-groups -- "$@"
exec "$@"
