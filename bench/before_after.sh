#!/usr/bin/env bash
# The page benches at two git revisions in one run, so that a change can show that no page got
# slower: a temporary worktree of each revision, each bench run at the same size on the same
# PostgreSQL (each revision's bench fills its own database of the same name, one after the
# other), the benches alternating between the revisions; then each page's server time side by
# side and a verdict.
#
# Usage: bench/before_after.sh BASE_REV [AFTER_REV] [--bots N --matches N --clients N
#                                                    --requests N --workers N ...]
#   e.g. bench/before_after.sh main HEAD --bots 1000 --matches 100000
# AFTER_REV defaults to HEAD. The benches: bench/page_speed.py and bench/boards_page_speed.py
# (all the arguments), bench/tournament_page_speed.py (--clients/--requests/--workers and
# --background/--field); BENCHES="page_speed ..." runs only those. Needs PostgreSQL (DATABASE_URL or 127.0.0.1:5432).
# Noise: each bench runs PASSES times a revision (default 2: before, after, before, after), a
# page's figure is its lowest median of the passes (a burst of the host's load slows one pass,
# never makes one faster), and a page is named slower when that grew by more than 20% and more
# than 2 ms (two runs of one revision on this shared machine differ by about that).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="$ROOT/.venv/bin/python"
base="${1:?usage: bench/before_after.sh BASE_REV [AFTER_REV] [page_speed arguments]}"; shift
after_rev=HEAD
if [ $# -gt 0 ] && [[ "$1" != --* ]]; then after_rev="$1"; shift; fi
tournament_args=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --clients|--requests|--workers|--background|--field)
      tournament_args+=("${args[$i]}" "${args[$((i + 1))]}") ;;
  esac
done
page_args=()
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --background|--field) i=$((i + 1)) ;;
    *) page_args+=("${args[$i]}") ;;
  esac
done
scratch="$(mktemp -d /tmp/kaiser-before-after.XXXXXX)"
cleanup() {
  for side in before after; do
    git -C "$ROOT" worktree remove --force "$scratch/$side" >/dev/null 2>&1 || true
  done
  rm -rf "$scratch"
}
trap cleanup EXIT
git -C "$ROOT" worktree add --detach -q "$scratch/before" "$base"
git -C "$ROOT" worktree add --detach -q "$scratch/after" "$after_rev"
passes="${PASSES:-2}"
for bench in ${BENCHES:-page_speed boards_page_speed tournament_page_speed}; do
  for pass in $(seq "$passes"); do for side in before after; do
    dir="$scratch/$side"
    [ -f "$dir/bench/$bench.py" ] || { echo "=== $side: no bench/$bench.py"; continue; }
    bench_args=("${page_args[@]}")
    [ "$bench" = tournament_page_speed ] && bench_args=("${tournament_args[@]}")
    echo "=== $side ($(git -C "$dir" rev-parse --short HEAD)): bench/$bench.py ${bench_args[*]}"
    (cd "$dir" && KAISER_VAR_DIR="$scratch/var-$side" "$PYTHON" "bench/$bench.py" \
      "${bench_args[@]}") | tee "$scratch/$bench.$side.$pass.txt"
  done; done
done
"$PYTHON" - "$scratch" "$base" "$after_rev" "$passes" <<'EOF'
"""Each page's median server time before and after, and the pages slower beyond noise."""
import sys
from pathlib import Path

scratch, base, after = Path(sys.argv[1]), sys.argv[2], sys.argv[3]


def server_times(bench: str, side: str) -> dict[str, float]:
    """page -> the lowest of its passes' medians (ms), from the "server time" tables."""
    lowest: dict[str, float] = {}
    for path in sorted(scratch.glob(f"{bench}.{side}.*.txt")):
        for page, ms in one_run(path).items():
            lowest[page] = min(ms, lowest.get(page, ms))
    return lowest


def one_run(path: Path) -> dict[str, float]:
    """page -> median ms of the first "server time" table of a bench's output."""
    lines = path.read_text().splitlines()
    found: dict[str, float] = {}
    for n, line in enumerate(lines):
        if not line.startswith("server time"):
            continue
        for row in lines[n + 2:]:
            if not row.startswith("  "):
                break
            parts = row.split()
            found[" ".join(parts[:-4])] = float(parts[-3])
        break
    return found


print(f"\nmedian server time, ms (the lowest of {sys.argv[4]} passes): before ({base}) and "
      f"after ({after})")
print(f"  {'bench / page':<46}{'before':>9}{'after':>9}{'change':>9}")
slower = []
for bench in ("page_speed", "boards_page_speed", "tournament_page_speed"):
    before, now = server_times(bench, "before"), server_times(bench, "after")
    for page in [p for p in now if p in before]:
        old, new = before[page], now[page]
        change = (new - old) / old if old else 0.0
        print(f"  {bench + ': ' + page:<46}{old:>9.1f}{new:>9.1f}{100 * change:>+8.0f}%")
        if new - old > 2 and change > 0.2:
            slower.append(f"{bench}: {page}")
if slower:
    print("slower beyond noise (> 20% and > 2 ms): " + "; ".join(slower))
else:
    print("no page slower beyond noise (> 20% and > 2 ms)")
EOF
