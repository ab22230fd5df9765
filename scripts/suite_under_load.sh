#!/usr/bin/env bash
# The whole suite (.ci/run) beside N busy loops (issue 44: tests wait for what they assert,
# so a host that other work keeps busy must not fail them). Each loop spins in a session of its
# own (the kernel's autogroup would otherwise give them together one process's share); all are
# killed when the suite ends. Arguments after N go on to pytest.
#     scripts/suite_under_load.sh 2 [-q]
set -euo pipefail
cd "$(dirname "$0")/.."
loops="${1:?how many busy loops}"
shift
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
for _ in $(seq "$loops"); do
  setsid python3 -c 'while True: pass' &
  pids+=($!)
done
echo "suite_under_load: $loops busy loops (pids ${pids[*]}), load $(cut -d' ' -f1 /proc/loadavg)" >&2
started=$(date +%s)
status=0
bash .ci/run "$@" || status=$?
echo "suite_under_load: $loops busy loops: exit $status after $(( $(date +%s) - started )) s," \
     "load $(cut -d' ' -f1 /proc/loadavg)" >&2
exit "$status"
