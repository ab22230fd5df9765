#!/bin/sh
# cgroup v1 hosts only (deploy/compose-cgroup-v1.yml runs it as the seat-thaw service): thaws
# the frozen seats of a worker container that died.
#
# The sandbox freezes every seat but the one on move (v1: freezer.state FROZEN). On cgroup v1
# a frozen task does not die, not even of SIGKILL, until its cgroup is thawed; and a container
# cannot finish dying while any task of its pid namespace lives. So a worker container killed
# mid-match (docker kill, docker stop after its grace period, compose down) would hang for
# ever, "running" with no process left but its frozen seats ("tried to kill container, but did
# not receive an exit event"). Nothing inside the dying container can help; this can, from
# outside: once a worker container's own cgroup holds no process (its init and worker are
# gone), its seats are thawed, their pending SIGKILL takes them, and the container exits.
# cgroup v2 needs none of this: a frozen task there dies of SIGKILL.
#
# Liveness: a worker lives while its own cgroup (the seats are below it, in cgroups of their
# own) lists a process in cgroup.procs. On v1 that file lists only the processes that the
# reader's PID namespace can see: read from a container's own namespace it is empty for every
# other container, and every live worker would look dead (its seats thawed a second after
# each freeze). So this runs in the host's PID namespace (compose: pid: host), where every task
# has a pid, and refuses to run anywhere else. A task that is exiting leaves the list before
# its namespace's init waits for the frozen seats, so a killed worker's list is empty at once.
#
# It needs no capability: root owns the cgroup files it writes (the bind of the freezer
# hierarchy's kaiser-arena subtree, as the workers see it).
set -u
ROOT="${1:-/run/kaiser-arena/freezer}"
INTERVAL="${KAISER_SEAT_THAW_INTERVAL:-1}"
PROC="${KAISER_SEAT_THAW_PROC:-/proc}"  # tests give a stand-in

# Pid 1 in our own cgroups: our own container's init, so a PID namespace of our own, in which
# no worker's process has a pid (pid: host missing, or a runtime that refuses it).
if cmp -s "$PROC/1/cgroup" "$PROC/self/cgroup"; then
  echo "seat-thaw: not in the host's PID namespace (compose: pid: host): the workers'" \
    "processes are invisible from here, so live workers would look dead; thawing nothing" >&2
  exit 1
fi

echo "seat-thaw: watching the worker containers' seats in $ROOT every ${INTERVAL}s" >&2
while :; do
  for container in "$ROOT"/*/; do
    [ -f "${container}cgroup.procs" ] && [ -z "$(cat "${container}cgroup.procs")" ] || continue
    for seat in "$container"kaiser-*/; do
      state="${seat}freezer.state"
      [ -f "$state" ] && [ "$(cat "$state")" != THAWED ] || continue
      echo THAWED > "$state" && echo "seat-thaw: thawed $seat (its container is gone)" >&2
    done
  done
  sleep "$INTERVAL"
done
