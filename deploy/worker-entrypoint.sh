#!/bin/sh
# The worker container's entrypoint: check what the sandbox needs in this container, arrange
# the seats' cgroups on a cgroup v2 host, say in the log what holds, and run the worker (the
# arguments, or by default a Celery worker). It needs no capability beyond the worker's own:
# Docker makes every mount before the container starts (docker-compose.yml), so nothing in
# this container ever holds CAP_SYS_ADMIN.
#
# The seats' cgroups: the container's own cgroup is <hierarchy>/kaiser-arena/<id> on the host
# (compose: cgroup_parent), the container shares the host's cgroup namespace (so
# /proc/self/cgroup names that real path), and deploy/compose-cgroup-v1.yml or -v2.yml binds
# the kaiser-arena subtree writable at that path over an otherwise empty /sys/fs/cgroup.
#   cgroup v1: the sandbox makes each seat's memory, pids, cpu, cpuacct and freezer cgroups
#     below the container's own (from /proc/self/cgroup); nothing to do here but check.
#   cgroup v2: a cgroup that hands controllers to its children may hold no process itself,
#     so the container's processes move into the leaf init/, and kaiser-seats/ gets memory,
#     pids and cpu for the seats: KAISER_SANDBOX_CGROUP_ROOT.
# Where this fails it says why and starts the worker anyway: its probe then finds no per-seat
# limits, /health/ shows the reason, and it plays no match (unless the operator chose the
# rlimit fallback).
set -u
CG=/sys/fs/cgroup
CONTROLLERS_V1="memory pids cpu cpuacct freezer"
CONTROLLERS_V2="memory pids cpu"

say() { echo "worker-entrypoint: $*" >&2; }

own_cgroup() {  # controller (v1) or "" (v2): this process's cgroup path, from /proc/self/cgroup
  awk -F: -v c="$1" '{ n = split($2, names, ",")
    if (c == "" && $1 == "0") { print $3; exit }
    for (i = 1; i <= n; i++) if (names[i] == c) { print $3; exit } }' /proc/self/cgroup
}

is_cgroup_dir() { [ -d "$1" ] && [ -w "$1/cgroup.procs" ]; }

host_layout() {  # v1 or v2: which hierarchy this host uses for the sandbox's controllers
  if grep -q '^[0-9]*:[^:]*memory[^:]*:' /proc/self/cgroup; then echo v1; else echo v2; fi
}

setup_v1() {
  missing=""
  for c in $CONTROLLERS_V1; do
    is_cgroup_dir "$CG/$c$(own_cgroup "$c")" || missing="$missing $c"
  done
  if [ -n "$missing" ]; then
    say "cgroup v1: no writable cgroup of this container for:$missing (compose: add" \
      "deploy/compose-cgroup-v1.yml to COMPOSE_FILE, see docs/operations.md)"
    return 1
  fi
  say "cgroup v1: seats below $(own_cgroup memory) (memory, pids, cpu, cpuacct, freezer)"
}

setup_v2() {
  own="$CG$(own_cgroup "")"
  if ! is_cgroup_dir "$own"; then
    say "cgroup v2: no writable cgroup of this container at $own (compose: add" \
      "deploy/compose-cgroup-v2.yml to COMPOSE_FILE, see docs/operations.md)"
    return 1
  fi
  mkdir -p "$own/init" "$own/kaiser-seats" || return 1
  for pid in $(cat "$own/cgroup.procs"); do
    echo "$pid" > "$own/init/cgroup.procs" 2>/dev/null || true
  done
  for c in $CONTROLLERS_V2; do
    grep -qw "$c" "$own/cgroup.controllers" || { say "cgroup v2: controller $c not delegated"; return 1; }
    echo "+$c" > "$own/cgroup.subtree_control" || return 1
    echo "+$c" > "$own/kaiser-seats/cgroup.subtree_control" || return 1
  done
  export KAISER_SANDBOX_CGROUP_ROOT="$own/kaiser-seats"
  say "cgroup v2: seats under $KAISER_SANDBOX_CGROUP_ROOT (memory, pids, cpu)"
}

check_tmp_slots() {  # each slot a tmpfs of its own with an inode limit
  dir="${KAISER_SANDBOX_TMP_SLOTS:-}"
  [ -n "$dir" ] || return 0
  count=0
  for slot in "$dir"/slot-*; do
    [ "$(stat -fc %T "$slot" 2>/dev/null)" = tmpfs ] && [ "$(stat -fc %d "$slot")" != "$(stat -fc %d "$dir")" ] \
      || { say "$slot is not a tmpfs of its own"; continue; }
    count=$((count + 1))
  done
  say "seat /tmp slots: $count in $dir (each $(stat -fc '%c inodes' "$dir/slot-0" 2>/dev/null))"
}

caps_hold_sys_admin() {  # bit 21 of the bounding set
  bnd=$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)
  [ -n "$bnd" ] && [ $(( (0x$bnd >> 21) & 1 )) = 1 ]
}

if [ "$(id -u)" != 0 ]; then
  say "not root: no seat uids and no seat cgroups (the sandbox needs root for both)"
elif [ "$(host_layout)" = v1 ]; then
  setup_v1 || say "no per-seat cgroups: see docs/operations.md, \"The worker container\""
else
  setup_v2 || say "no per-seat cgroups: see docs/operations.md, \"The worker container\""
fi
check_tmp_slots

[ $# -gt 0 ] || set -- celery -A kaiser_site worker -l INFO \
  --concurrency "${KAISER_WORKER_CONCURRENCY:-2}" -n "worker@%h"
if caps_hold_sys_admin; then
  # Started with CAP_SYS_ADMIN (an old `docker run` line): the worker never needs it.
  say "CAP_SYS_ADMIN granted to this container: not needed, dropped for the worker" \
    "(pid 1 and docker exec keep it: remove it from the container's capabilities)"
  exec setpriv --bounding-set -sys_admin --inh-caps -sys_admin -- "$@"
fi
exec "$@"
