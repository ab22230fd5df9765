#!/usr/bin/env bash
# The page benches at an earlier commit and at this working tree, one after the other in one
# run, so that a change of structure can show that no page got slower.
#
# Usage: bench/before_after.sh <base-ref> [--bots N --matches N ...]
#   e.g. bench/before_after.sh 11edb7a            (before the app split, issue 23)
# The extra arguments go to bench/page_speed.py; bench/tournament_page_speed.py gets
# --clients/--requests/--workers only. Needs PostgreSQL (DATABASE_URL or 127.0.0.1:5432).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?usage: bench/before_after.sh <base-ref> [page_speed arguments]}"; shift
tournament_args=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --clients|--requests|--workers) tournament_args+=("${args[$i]}" "${args[$((i + 1))]}") ;;
  esac
done
before="$(mktemp -d /tmp/kaiser-before.XXXXXX)"
trap 'git -C "$ROOT" worktree remove --force "$before" >/dev/null 2>&1 || true' EXIT
git -C "$ROOT" worktree add --detach -q "$before" "$base"
for side in before after; do
  dir="$ROOT"; [ "$side" = before ] && dir="$before"
  label="$side ($(git -C "$dir" rev-parse --short HEAD))"
  echo "=== $label: bench/page_speed.py $*"
  (cd "$dir" && "$ROOT/.venv/bin/python" bench/page_speed.py "$@")
  echo "=== $label: bench/tournament_page_speed.py ${tournament_args[*]}"
  (cd "$dir" && "$ROOT/.venv/bin/python" bench/tournament_page_speed.py "${tournament_args[@]}")
done
