#!/bin/sh
# The worker container's entrypoint: give the sandbox a cgroup subtree it may write, so that
# every seat gets its own memory, pids and cpu limits (and can be frozen), then drop the one
# extra capability this needed and run the worker (the arguments, or by default a Celery
# worker) as root without CAP_SYS_ADMIN.
#
# Why CAP_SYS_ADMIN at all: Docker mounts /sys/fs/cgroup read-only in every container that
# is not --privileged; only a remount makes the container's own cgroup writable. The
# container must also have its own cgroup namespace (compose: `cgroup: private`, docker run:
# --cgroupns private; the default on cgroup v2 hosts) so that /sys/fs/cgroup is the
# container's cgroup and nothing of the host's. The capability is gone from the bounding set
# before the worker starts, so neither the worker nor any bot ever holds it.
#
# cgroup v2: the container's processes move into a leaf (init/), the root of the container's
# subtree enables +memory +pids +cpu for its children, and kaiser-seats/ (the same enabled
# again) is where the sandbox makes one cgroup per seat: KAISER_SANDBOX_CGROUP_ROOT.
# cgroup v1: the memory, pids, cpu and freezer hierarchies are remounted writable; the
# sandbox makes its seat cgroups below the worker's own cgroup in each (from /proc/self/cgroup).
#
# Without the capability (or on a host that refuses) this says so and starts the worker
# anyway: the worker then reports its sandbox mode in /health/ and, without per-seat limits,
# plays no match unless the operator opted into the rlimit fallback.
set -u
CG=/sys/fs/cgroup
SEATS="$CG/kaiser-seats"
CONTROLLERS="memory pids cpu"

say() { echo "worker-entrypoint: $*" >&2; }

remount_rw() {  # mount point
  grep -q " $1 [^ ]* [^ ]*rw[, ]" /proc/self/mounts 2>/dev/null && return 0
  mount -o remount,rw "$1" 2>/dev/null || mount -o remount,bind,rw "$1" 2>/dev/null
}

in_private_cgroupns() {
  # In its own cgroup namespace a process sees itself at the root ("0::/" or "N:ctl:/").
  cut -d: -f3 /proc/self/cgroup | grep -qvx '/' && return 1
  return 0
}

setup_v2() {
  remount_rw "$CG" || { say "cannot make $CG writable (no CAP_SYS_ADMIN?)"; return 1; }
  mkdir -p "$CG/init" "$SEATS" || return 1
  # The "no internal processes" rule: a cgroup that hands controllers to its children may
  # hold no process itself, so everything here (this shell, docker-init) moves to init/.
  for pid in $(cat "$CG/cgroup.procs"); do
    echo "$pid" > "$CG/init/cgroup.procs" 2>/dev/null || true
  done
  for c in $CONTROLLERS; do
    grep -qw "$c" "$CG/cgroup.controllers" || { say "controller $c not delegated"; return 1; }
    echo "+$c" > "$CG/cgroup.subtree_control" || return 1
    echo "+$c" > "$SEATS/cgroup.subtree_control" || return 1
  done
  export KAISER_SANDBOX_CGROUP_ROOT="$SEATS"
  say "cgroup v2: seats under $SEATS (memory, pids, cpu)"
}

setup_v1() {
  ok=1
  for c in memory pids cpu freezer; do
    # The mount point of controller c (cpu may share one with cpuacct).
    point=$(awk -v c="$c" '$3 == "cgroup" { n = split($4, o, ","); for (i = 1; i <= n; i++)
            if (o[i] == c) { print $2; exit } }' /proc/self/mounts)
    if [ -z "$point" ]; then say "cgroup v1: no $c hierarchy"; ok=0; continue; fi
    remount_rw "$point" || { say "cannot make $point writable (no CAP_SYS_ADMIN?)"; ok=0; }
  done
  [ "$ok" = 1 ] && say "cgroup v1: memory, pids, cpu and freezer writable for this container"
  [ "$ok" = 1 ]
}

setup_cgroups() {
  in_private_cgroupns || { say "not in a cgroup namespace of its own (compose: cgroup: private;" \
    "docker run: --cgroupns private), and cannot make one"; return 1; }
  if [ "$(stat -fc %T "$CG")" = cgroup2fs ]; then setup_v2; else setup_v1; fi
}

# Started without a cgroup namespace of its own (docker run without --cgroupns private, the
# default on cgroup v1 hosts): make one, rooted at the container's cgroup, and start again.
if [ "$(id -u)" = 0 ] && [ -z "${KAISER_CGROUPNS_UNSHARED:-}" ] && ! in_private_cgroupns \
   && unshare --cgroup true 2>/dev/null; then
  KAISER_CGROUPNS_UNSHARED=1 exec unshare --cgroup -- "$0" "$@"
fi
unset KAISER_CGROUPNS_UNSHARED

if [ "$(id -u)" != 0 ]; then
  say "not root: no cgroup set-up (the sandbox needs root to start bots as another user)"
elif ! setup_cgroups; then
  say "no per-seat cgroups: see docs/operations.md, \"The worker container\""
fi

[ $# -gt 0 ] || set -- celery -A kaiser_site worker -l INFO \
  --concurrency "${KAISER_WORKER_CONCURRENCY:-2}" -n "worker@%h"
if [ "$(id -u)" = 0 ] && grep -q '^CapBnd:' /proc/self/status; then
  exec setpriv --bounding-set -sys_admin --inh-caps -sys_admin -- "$@"
fi
exec "$@"
