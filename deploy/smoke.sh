#!/usr/bin/env bash
# The deployment smoke test: the Compose stack of this repository, built and run for real on
# this machine's Docker, used through its API as a user would, and torn down again.
#
#   deploy/smoke.sh [--offline] [--commit REF] [--port N] [--keep] [--timeout SECONDS]
#
#   --offline      build stand-in base images from Debian's packages first
#                  (deploy/build-base-images.sh: debootstrap), for a host that cannot pull
#                  debian, postgres and redis from Docker Hub; the image build then uses the
#                  host's own pip index settings, if it has any
#   --commit REF   test a commit (git archive REF) instead of the files as they are
#   --port N       the host port of the web server (default 18080)
#   --keep         leave the stack running at the end (docker compose -p kaiser-smoke ...)
#   --timeout S    the longest wait for any one step (default 600)
#
# Needs Docker with Compose v2 (`docker compose`), curl and python3, and root on the Docker
# host itself (it reads the seats' cgroups and the containers' /proc there). Not part of the test
# suite: it takes minutes and the whole machine. It uses its own Compose project
# (kaiser-smoke), image name (kaiser-arena-smoke) and settings file (in a temporary folder),
# so an operator's .env and stack are left alone. Exit status 0 only if every check passed.
#
# What it checks: one image built once and run by web, worker and beat; the web healthcheck
# passing with an ALLOWED_HOSTS that does not contain localhost; /health/ and the worker's
# sandbox mode; the example bots uploaded through the API become active and play ladder
# matches; a replay; the seats' freezer read on the host through whole matches (every seat
# off move frozen in every sample) and seat-thaw thawing nothing while every worker lives; two
# workers; a worker killed mid-match, at a moment when seats are frozen, exiting, with nothing
# lost or counted twice; hostile bots (memory hog, fork bomb, CPU spinner) stopped inside the
# container with the right fault; a bot that marks its /tmp slot, whose mark no seat after it
# finds; and last, a worker killed with frozen seats, then `docker compose down -v`: workers
# stopped before seat-thaw, and no container, volume or network left.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OFFLINE=0 COMMIT="" PORT=18080 KEEP=0 TIMEOUT=600
while [[ $# -gt 0 ]]; do
  case "$1" in
    --offline) OFFLINE=1 ;;
    --commit) COMMIT="$2"; shift ;;
    --port) PORT="$2"; shift ;;
    --keep) KEEP=1 ;;
    --timeout) TIMEOUT="$2"; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

PROJECT=kaiser-smoke
IMAGE=kaiser-arena-smoke
HOST=arena.smoke.test  # the site's only allowed name: no localhost, as in production
WORK=$(mktemp -d /tmp/kaiser-smoke.XXXXXX)
ENV_FILE="$WORK/smoke.env"
SRC="$ROOT"
STARTED=$SECONDS
RESULTS=()
FAILED=0
TOKEN=""

# --- output -------------------------------------------------------------------------------
stamp() { printf '%4ds' $((SECONDS - STARTED)); }
step() { printf '\n[%s] == %s\n' "$(stamp)" "$*"; }
info() { printf '[%s]    %s\n' "$(stamp)" "$*"; }
pass() { RESULTS+=("PASS  $*"); printf '[%s] PASS %s\n' "$(stamp)" "$*"; }
fail() { RESULTS+=("FAIL  $*"); FAILED=1; printf '[%s] FAIL %s\n' "$(stamp)" "$*"; }
check() {  # description, then a command: PASS if it succeeds
  local what="$1"; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
fatal() { fail "$*"; exit 1; }

summary() {
  local status=$?
  printf '\n== Summary (%d s)\n' $((SECONDS - STARTED))
  printf '  %s\n' "${RESULTS[@]}"
  if [[ -n "${COMPOSE_READY:-}" ]]; then
    [[ -n "${LOGS_SAVED:-}" ]] || compose logs --no-color --timestamps > "$WORK/compose.log" 2>&1
    echo "  all containers' logs: $WORK/compose.log"
    if [[ "$KEEP" == 1 ]]; then
      echo "  left running: docker compose -p $PROJECT -f $SRC/docker-compose.yml --env-file $ENV_FILE ..."
    else
      compose down -v --remove-orphans >/dev/null 2>&1
      docker image rm "$IMAGE" >/dev/null 2>&1
      echo "  torn down (containers, volumes, network, image $IMAGE)"
    fi
  fi
  if [[ "$FAILED" == 0 && "$status" == 0 ]]; then echo "SMOKE TEST PASSED"; exit 0; fi
  echo "SMOKE TEST FAILED"
  exit 1
}
trap summary EXIT
trap 'exit 130' INT TERM

# --- helpers ------------------------------------------------------------------------------
# The worker's cgroup binds for this host's layout (deploy/compose-cgroup-v1.yml or -v2.yml),
# as an operator names them in COMPOSE_FILE.
CGROUP_LAYOUT=$( [[ $(stat -fc %T /sys/fs/cgroup) == cgroup2fs ]] && echo v2 || echo v1 )
compose() { docker compose -p "$PROJECT" -f "$SRC/docker-compose.yml" \
  -f "$SRC/deploy/compose-cgroup-$CGROUP_LAYOUT.yml" --env-file "$ENV_FILE" "$@"; }

api() {  # METHOD PATH [curl args...]: the body on stdout, the HTTP status in $WORK/status
  local method="$1" path="$2"; shift 2
  local auth=()
  [[ -n "$TOKEN" ]] && auth=(-H "Authorization: Token $TOKEN")
  curl -sS -o "$WORK/body" -w '%{http_code}' -X "$method" -H "Host: $HOST" "${auth[@]}" \
    "$@" "http://127.0.0.1:$PORT$path" > "$WORK/status" 2>"$WORK/curl.err"
  cat "$WORK/body"
}
status() { cat "$WORK/status"; }

jq_py() {  # EXPRESSION over the JSON on stdin, bound to d (python3: no jq needed)
  python3 -c 'import json, sys; d = json.load(sys.stdin); r = eval(sys.argv[1]); print(r if isinstance(r, str) else json.dumps(r))' "$1"
}

wait_for() {  # description, seconds, command: retries every 3 s until it succeeds
  local what="$1" limit="$2"; shift 2
  local until=$((SECONDS + limit))
  while ! "$@"; do
    if (( SECONDS >= until )); then info "gave up after ${limit}s: $what"; return 1; fi
    sleep 3
  done
}

ledger() { compose exec -T web python deploy/smoke_checks.py ledger 2>/dev/null; }

# The seats' freezer as the host sees it (deploy/smoke_seats.py): the folder that holds a worker
# container's seat cgroups, from the container's own cgroup in /proc/<pid>/cgroup.
seats_dir() {  # CONTAINER
  local pid path
  pid=$(docker inspect -f '{{.State.Pid}}' "$1") || return 1
  if [[ "$CGROUP_LAYOUT" == v1 ]]; then
    path=$(awk -F: '$2 == "freezer" {print $3}' "/proc/$pid/cgroup")
    echo "/sys/fs/cgroup/freezer$path"
  else  # the entrypoint moved the container's processes into init/, the seats are beside it
    path=$(awk -F: '$1 == "0" {print $3}' "/proc/$pid/cgroup")
    echo "/sys/fs/cgroup${path%/init}/kaiser-seats"
  fi
}
seats() { python3 "$SRC/deploy/smoke_seats.py" "$@"; }
# seat-thaw's "thawed" lines so far (cgroup v1), of the container ID if given.
thaws() { compose logs --no-color seat-thaw 2>/dev/null | grep 'seat-thaw: thawed' | grep -c "${1:-}"; }
container_of() {  # an attempt's worker (celery@HOST:task): the worker container on HOST
  local cid
  for cid in $(compose ps -q worker); do
    [[ "$1" == *"@$(docker inspect -f '{{.Config.Hostname}}' "$cid"):"* ]] && echo "$cid"
  done
}

# --- 0. preconditions ---------------------------------------------------------------------
step "Preconditions"
docker info >/dev/null 2>&1 || fatal "docker daemon reachable"
docker compose version >/dev/null 2>&1 \
  || fatal "Docker Compose v2 (docker compose) installed: the compose file is v2 syntax"
command -v curl >/dev/null && command -v python3 >/dev/null || fatal "curl and python3 present"
info "$(docker version -f 'Docker {{.Server.Version}}' 2>/dev/null), $(docker compose version)"
info "cgroup: $(stat -fc %T /sys/fs/cgroup) ($( [[ $(stat -fc %T /sys/fs/cgroup) == cgroup2fs ]] && echo v2 || echo v1 ) host)"
if [[ -n "$COMMIT" ]]; then
  mkdir "$WORK/src"
  git -C "$ROOT" archive "$COMMIT" | tar -x -C "$WORK/src" || fatal "git archive $COMMIT"
  SRC="$WORK/src"
  info "testing commit $(git -C "$ROOT" rev-parse --short "$COMMIT"): $(git -C "$ROOT" log -1 --format=%s "$COMMIT" | cut -c1-80)"
else
  info "testing the files in $ROOT as they are"
fi
COMPOSE_READY=1
compose down -v --remove-orphans >/dev/null 2>&1  # what a run before may have left

{
  echo "SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')"
  echo "POSTGRES_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_urlsafe(16))')"
  echo "ALLOWED_HOSTS=$HOST"
  echo "CSRF_TRUSTED_ORIGINS=http://$HOST"
  echo "KAISER_HTTP_PORT=$PORT"
  echo "KAISER_IMAGE=$IMAGE"
  echo "KAISER_WEB_WORKERS=2"
  echo "KAISER_WORKER_CONCURRENCY=2"
  echo "KAISER_SANDBOX_MEMORY_MB=256"
  echo "KAISER_MATCH_LEASE_SECONDS=30"  # a killed worker's match comes back within ~90 s
} > "$ENV_FILE"

if [[ "$OFFLINE" == 1 ]]; then
  step "Stand-in base images from Debian's packages (--offline)"
  bash "$SRC/deploy/build-base-images.sh" >> "$ENV_FILE" || fatal "base images built"
  pass "base images built: $(grep -E '^(BASE|POSTGRES|REDIS)_IMAGE=' "$ENV_FILE" | cut -d= -f2 | tr '\n' ' ')"
  # The host's own package index, if it names one that a container can reach (not file://).
  for key in index-url extra-index-url; do
    value=$(python3 -m pip config get "global.$key" 2>/dev/null || true)
    var="PIP_$(tr 'a-z-' 'A-Z_' <<< "$key")"
    value="${!var:-$value}"
    value=$(tr ' ' '\n' <<< "$value" | grep -E '^https?://' | tr '\n' ' ' | sed 's/ $//')
    [[ -n "$value" ]] && echo "$var=$value" >> "$ENV_FILE" && info "$var from the host's pip settings"
  done
fi

# --- 1. build and up ----------------------------------------------------------------------
step "Build and up, as README.md says (docker compose up -d --build)"
docker image rm "$IMAGE" >/dev/null 2>&1  # built here, not left from before
t0=$SECONDS
compose up -d --build --wait --wait-timeout "$TIMEOUT" > "$WORK/up.log" 2>&1 \
  || { tail -30 "$WORK/up.log"; compose ps; fatal "stack built, up and healthy"; }
pass "image $IMAGE built, stack up and every healthcheck passing, in $((SECONDS - t0)) s"
compose ps --format 'table {{.Service}}\t{{.Image}}\t{{.Status}}' | sed 's/^/        /'
app_services=$(compose config --services | grep -vxE 'db|redis' | xargs echo)
built=$(grep -E '^ *[A-Za-z0-9_-]+ +Built$' "$WORK/up.log" | xargs echo)
check "exactly one service builds the image (compose: ${built:-nothing})" test "$built" = "web Built"
check "up pulled nothing for $app_services (they run the image web built)" \
  bash -c '! grep -qE "^ *(${1// /|}) +(Pulling|Error)" "$2"' _ "$app_services" "$WORK/up.log"
images=$(for s in $app_services; do docker inspect -f '{{.Image}}' "$(compose ps -q "$s")"; done | sort -u | wc -l)
check "$app_services: all run the same image" test "$images" = 1
check "web healthy with ALLOWED_HOSTS=$HOST (no localhost)" \
  test "$(docker inspect -f '{{.State.Health.Status}}' "$(compose ps -q web)")" = healthy
exec_plain() { env -u SECRET_KEY -u POSTGRES_PASSWORD docker compose -p "$PROJECT" \
  -f "$SRC/docker-compose.yml" -f "$SRC/deploy/compose-cgroup-$CGROUP_LAYOUT.yml" \
  --env-file "$ENV_FILE" "$@" >/dev/null 2>&1; }
check "compose ps/logs/exec work with nothing exported (SECRET_KEY only in the settings file)" \
  bash -c "$(declare -f exec_plain); PROJECT=$PROJECT SRC=$SRC ENV_FILE=$ENV_FILE CGROUP_LAYOUT=$CGROUP_LAYOUT
    exec_plain ps && exec_plain logs --tail 1 web && exec_plain exec -T web true"
check "a request naming another host is refused (400)" \
  test "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "http://127.0.0.1:$PORT/health/")" = 400

# --- 3. the worker's sandbox ----------------------------------------------------------------
step "The worker's sandbox"
compose logs --no-color worker 2>/dev/null | grep -E 'worker-entrypoint|sandbox' | head -5 | sed 's/^/        /'
# No process of the worker container holds CAP_SYS_ADMIN: pid 1 (docker-init), the celery
# processes, and a process started by `docker compose exec` (it gets the container's set).
caps=$(compose exec -T worker sh -c 'for p in /proc/[0-9]*; do
  tr "\0" " " < $p/cmdline 2>/dev/null | grep -q . && grep CapBnd $p/status 2>/dev/null
done; grep CapBnd /proc/self/status' | sort -u)
info "the worker container's bounding sets (every process, and an exec): $(echo $caps)"
pid1=$(compose exec -T worker awk '/^CapEff:/ {print $2}' /proc/1/status)
info "pid 1's capabilities: $pid1 $(capsh --decode="$pid1" 2>/dev/null | cut -d= -f2)"
check "no process of the worker container holds CAP_SYS_ADMIN, pid 1 and exec included" \
  python3 -c "import sys; sys.exit(any(int(l.split()[1], 16) >> 21 & 1 for l in sys.argv[1].splitlines() if l) or not sys.argv[1].strip())" "$caps"
slots=$(compose exec -T worker sh -c 'for s in "$KAISER_SANDBOX_TMP_SLOTS"/slot-*; do stat -fc "%T %c" "$s"; done' | sort | uniq -c | xargs echo)
info "the worker's seat /tmp slots (count, type, inodes): $slots"
check "the seats' /tmp slots are tmpfs mounts with an inode limit of 4096" \
  grep -qE '^[0-9]+ tmpfs 4096$' <<< "$slots"
probe=$(compose exec -T worker python -c '
import engine.sandbox as s
r = s.probe_sandbox()
print(r.mode, "ok" if r.ok else "NOT-OK", getattr(r, "kernel", "host"), "-", r.reason)' 2>&1 | tail -1)
info "a sandbox probe in the worker container: $probe"
SANDBOX_MODE=${probe%% *}
check "the probe ran a bot in a sandbox with per-seat cgroups ($SANDBOX_MODE)" \
  grep -qE '^cgroup-v[12] ok' <<< "$probe"
if [[ -f "$SRC/engine/gvisor.py" || -f "$SRC/engine/sandbox/gvisor.py" ]]; then
  check "the probe's seat ran on a gVisor kernel of its own (runsc in the worker container)" \
    grep -qE '^cgroup-v[12] ok gvisor ' <<< "$probe"
fi

# --- 4. health ----------------------------------------------------------------------------
step "/health/"
health_has_worker() { api GET /health/ | jq_py 'd["workers"]["count"] >= 1' | grep -qx true; }
wait_for "a worker in /health/" 120 health_has_worker
body=$(api GET /health/)
info "/health/ $(status): $(cut -c1-600 <<< "$body")"
check "/health/ is 200 and \"ok\"" test "$(status) $(jq_py 'd["status"]' <<< "$body")" = "200 ok"
sandbox=$(jq_py 'd.get("sandbox") or d["workers"].get("sandbox") or d["workers"].get("details") or "no sandbox section"' <<< "$body")
info "/health/ on the sandbox: $(cut -c1-400 <<< "$sandbox")"

# --- 5. uploads ---------------------------------------------------------------------------
step "Upload the example bots through the API"
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(12))')
compose exec -T web python deploy/smoke_checks.py user smoke "$password" >/dev/null \
  || fatal "a user for the uploads"
TOKEN=$(api POST /api/v1/auth/token/ -d username=smoke -d "password=$password" | jq_py 'd["token"]')
[[ "$(status)" == 200 && -n "$TOKEN" ]] || fatal "an API token ($(status))"

upload() {  # FILE NAME [GAME]: creates the bot and uploads FILE; prints the version id
  local file="$1" name="$2" game="${3:-kaiser}" bot
  bot=$(api POST /api/v1/bots/ -H 'Content-Type: application/json' \
    -d "{\"name\": \"$name\", \"game\": \"$game\"}" | jq_py 'd["id"]')
  [[ "$(status)" == 201 ]] || { info "creating $name: $(status) $(cat "$WORK/body")"; return 1; }
  api POST "/api/v1/bots/$bot/versions/" -F "file=@$file" | jq_py 'd["id"]'
  [[ "$(status)" == 201 ]] || { info "uploading $file: $(status) $(cat "$WORK/body")"; return 1; }
}
declare -A VERSIONS=() BOTS=()
for file in "$SRC"/bots/examples/*.py "$SRC"/bots/examples/*.zip; do
  base=$(basename "$file")
  case "$base" in
    kaiser_protocol.py|build_zips.py) continue ;;  # the protocol library and the zips' builder
  esac
  name="smoke-${base%.*}-${base##*.}"
  game=kaiser
  [[ "$base" == sergeant_major* ]] && game=sergeant-major  # the starter kit's other game
  if version=$(upload "$file" "$name" "$game"); then
    VERSIONS[$name]=$version
    # The ladder check below: Kaiser's. The Sergeant Major ladder groups three owners, and this
    # stack has one besides the house's: that bot plays only its upload check's games.
    [[ "$game" == kaiser ]] && BOTS[$name]=$(api GET "/api/v1/versions/$version/" | jq_py 'd["bot"]')
    info "uploaded $base as $name (version $version)"
  else
    fail "upload of $base"
  fi
done
check "${#VERSIONS[@]} example bots uploaded" test "${#VERSIONS[@]}" -ge 4

version_status() { api GET "/api/v1/versions/$1/" | jq_py 'd["status"]'; }
all_checked() {
  local v
  for v in "$@"; do [[ "$(version_status "$v")" =~ ^(active|rejected)$ ]] || return 1; done
}
wait_for "upload checks" "$TIMEOUT" all_checked "${VERSIONS[@]}"
for name in "${!VERSIONS[@]}"; do
  v=${VERSIONS[$name]}
  row=$(api GET "/api/v1/versions/$v/")
  st=$(jq_py 'd["status"]' <<< "$row")
  check "$name is active (${st}: $(jq_py 'd["reason"]' <<< "$row" | cut -c1-100))" test "$st" = active
done

# --- 6. ladder matches and a replay ----------------------------------------------------------
step "Ladder matches"
finished_of() { api GET "/api/v1/matches/?bot=$1&status=finished" | jq_py 'd["count"]'; }
every_bot_played() {
  local name n
  for name in "${!BOTS[@]}"; do
    n=$(finished_of "${BOTS[$name]}")
    [[ "$n" =~ ^[0-9]+$ && "$n" -ge 1 ]] || return 1
  done
}
t0=$SECONDS
if wait_for "every Kaiser example bot in a finished ladder match" "$TIMEOUT" every_bot_played; then
  pass "every Kaiser example bot played a finished ladder match ($((SECONDS - t0)) s)"
else
  fail "every Kaiser example bot played a finished ladder match"
fi
for name in "${!BOTS[@]}"; do info "$name: $(finished_of "${BOTS[$name]}") finished matches"; done
match=$(api GET "/api/v1/matches/?status=finished" | jq_py 'd["results"][0]["id"]')
replay=$(api GET "/api/v1/matches/$match/replay/")
info "replay of match $match: HTTP $(status), $(wc -c <<< "$replay") bytes, keys $(jq_py 'sorted(d)' <<< "$replay" 2>/dev/null)"
check "the replay of match $match is served (200, with its games)" \
  bash -c '[[ "$(cat "$1")" == 200 ]] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d.get(\"games\"))" "$2"' _ "$WORK/status" "$WORK/body"

# --- 6b. the seats off move frozen, while the worker lives ---------------------------------
step "Seats off move frozen for whole matches (their freezer, read on the host)"
# A live worker's seats, sampled about every 5 ms from before a match starts until after it
# ends (two whole matches at least, and 200 samples with a seat frozen): in every sample, every
# seat at a table but the one on move must be frozen. And seat-thaw (cgroup v1), which thaws
# the seats of dead workers only, must thaw nothing here.
worker1=$(compose ps -q worker | head -1)
dir=$(seats_dir "$worker1")
info "worker ${worker1:0:12}'s seats: $dir"
rm -f "$WORK/watch.stop"
since=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
seats watch "$dir" "$WORK/watch.stop" "$TIMEOUT" > "$WORK/watch.json" &
watcher=$!
host1=$(docker inspect -f '{{.Config.Hostname}}' "$worker1")
whole_matches() {  # matches that worker started after the watch began, and finished
  compose exec -T web python deploy/smoke_checks.py played "$since" 2>/dev/null \
    | jq_py '[p["match"] for p in d["played"] if "@'"$host1"':" in p["worker"]]' \
    > "$WORK/whole" && jq_py 'len(d) >= 2' < "$WORK/whole" | grep -qx true \
    && [[ "$(cat "$WORK/watch.stop.count" 2>/dev/null || echo 0)" -ge 200 ]]
}
wait_for "two whole matches on worker ${worker1:0:12}, 200 samples with a seat frozen" "$TIMEOUT" whole_matches
touch "$WORK/watch.stop"
wait "$watcher"
watched=$(cat "$WORK/watch.json")
info "whole matches watched: $(cat "$WORK/whole"); the freezer: $watched"
check "the freezer watched whole matches ($(cat "$WORK/whole")) and saw seats frozen" \
  python3 -c 'import json, sys; d = json.loads(sys.argv[1])
sys.exit(not (d["samples_in_play"] >= 100 and d["readings"].get("FROZEN", 0) > 0))' "$watched"
check "every seat off move FROZEN in every sample ($(jq_py '"%d of %d samples at a table" % (d["samples_off_move_frozen"], d["samples_in_play"])' <<< "$watched"))" \
  test "$(jq_py 'd["samples_two_awake"]' <<< "$watched")" = 0
if [[ "$CGROUP_LAYOUT" == v1 ]]; then
  check "seat-thaw thawed nothing while every worker lived ($(thaws) thaws)" test "$(thaws)" = 0
fi

# --- 7. two workers, one killed mid-match ---------------------------------------------------
step "Scale to two workers"
compose up -d --no-recreate --scale worker=2 --wait --wait-timeout "$TIMEOUT" > "$WORK/scale.log" 2>&1 \
  || { tail -5 "$WORK/scale.log"; fail "scaled to two workers"; }
# Only the ladder workers (celery@...): a play-worker service, if any, names itself play@...
two_workers() { api GET /health/ | jq_py 'len([n for n in d["workers"]["names"] if n.startswith("celery@")])' | grep -qx 2; }
check "/health/ reports two ladder workers" wait_for "two workers in /health/" 120 two_workers
if [[ "$CGROUP_LAYOUT" == v1 ]]; then
  check "seat-thaw thawed nothing while both workers lived ($(thaws) thaws)" test "$(thaws)" = 0
fi

step "Kill a worker mid-match (docker kill -s KILL, then docker start)"
running_now() { compose exec -T web python deploy/smoke_checks.py running 2>/dev/null; }
some_match_running() { running_now | jq_py 'd["running"][0]["worker"]' > "$WORK/running" 2>/dev/null; }
CUT=""
for try in 1 2 3; do
  wait_for "a match being played" 180 some_match_running || break
  victim_worker=$(cat "$WORK/running")
  victim=""
  for cid in $(compose ps -q worker); do
    [[ "$victim_worker" == *"@$(docker inspect -f '{{.Config.Hostname}}' "$cid")"* ]] && victim=$cid
  done
  [[ -n "$victim" ]] || { info "no worker container runs $victim_worker"; continue; }
  [[ "$CGROUP_LAYOUT" == v1 ]] && thawed_before=$(thaws) victim_before=$(thaws "$victim")
  # At a moment when seats of the victim are frozen (the case that hung on cgroup v1).
  killed=$(seats kill-when-frozen "$(seats_dir "$victim")" "$victim" 120)
  info "killed ${victim:0:12}: $(jq_py '{k: d[k] for k in ("killed", "frozen", "docker_kill") if k in d}' <<< "$killed")"
  [[ "$(jq_py 'd["killed"]' <<< "$killed")" == true ]] \
    || docker kill -s KILL "$victim" >/dev/null 2>&1  # no frozen seat in 120 s: kill anyway
  # A container that cannot die (on cgroup v1, a frozen seat outlives SIGKILL until thawed:
  # deploy/seat-thaw.sh) would still be "running" here and never play its matches again.
  wait_for "the killed worker's exit" 30 bash -c \
    '[[ $(docker inspect -f "{{.State.Status}}" "$1") == exited ]]' _ "$victim"
  check "the killed worker container exited (state $(docker inspect -f '{{.State.Status}}' "$victim"))" \
    test "$(docker inspect -f '{{.State.Status}}' "$victim")" = exited
  if [[ "$CGROUP_LAYOUT" == v1 ]]; then
    frozen_at_kill=$(jq_py 'len(d.get("frozen", []))' <<< "$killed")
    new=$(( $(thaws "$victim") - victim_before ))
    check "seat-thaw thawed the dead worker's seats, no other ($frozen_at_kill frozen at the kill; $new thawed, $(( $(thaws) - thawed_before - new )) of other workers)" \
      test "$new" -ge "$((frozen_at_kill > 0))" -a "$(( $(thaws) - thawed_before ))" = "$new"
  fi
  # The attempts the dead worker still holds are the matches it was playing when it died:
  # nothing but the stale-match sweep touches them now.
  host=$(docker inspect -f '{{.Config.Hostname}}' "$victim")
  CUT=$(running_now | jq_py '" ".join(str(r["match"]) for r in d["running"] if "@'"$host"':" in r["worker"])')
  docker start "$victim" >/dev/null
  [[ -n "$CUT" ]] && break
  info "try $try: its match ended just before the kill; again"
done
if [[ -n "$CUT" ]]; then
  pass "worker ${victim:0:12} killed while playing match(es) $CUT"
  cut_done() {
    local m
    for m in $CUT; do
      [[ "$(api GET "/api/v1/matches/$m/" | jq_py 'd["status"]')" =~ ^(finished|void|failed)$ ]] || return 1
    done
  }
  t0=$SECONDS
  wait_for "the cut matches played again" "$TIMEOUT" cut_done
  for m in $CUT; do
    row=$(api GET "/api/v1/matches/$m/")
    check "match $m finished after the kill, $((SECONDS - t0)) s later (status, attempts: $(jq_py '[d["status"], d.get("attempts")]' <<< "$row"))" \
      test "$(jq_py 'd["status"]' <<< "$row")" = finished
  done
else
  fail "a worker killed while it played a match (none was running, or each ended first)"
fi

# --- 8. hostile bots ----------------------------------------------------------------------
step "Hostile bots, stopped inside the container"
declare -A HOSTILE=([memory_hog]="resource" [fork_bomb]="resource" [cpu_loop]="timeout")
declare -A HOSTILE_VERSION=()
for bot in "${!HOSTILE[@]}"; do
  if version=$(upload "$SRC/tests/engine/hostile/$bot.py" "smoke-hostile-${bot//_/-}"); then
    HOSTILE_VERSION[$bot]=$version
  else
    fail "upload of hostile $bot"
  fi
done
wait_for "the hostile bots' checks" "$TIMEOUT" all_checked "${HOSTILE_VERSION[@]}"
for bot in "${!HOSTILE_VERSION[@]}"; do
  row=$(api GET "/api/v1/versions/${HOSTILE_VERSION[$bot]}/")
  st=$(jq_py 'd["status"]' <<< "$row")
  reason=$(jq_py 'd["reason"]' <<< "$row")
  fault=$(jq_py '(d.get("check_summary") or {}).get("forfeit") or {}' <<< "$row" | jq_py 'd.get("reason", "")' 2>/dev/null)
  info "$bot: $st, fault ${fault:-?}: $(cut -c1-160 <<< "$reason")"
  check "$bot rejected with fault ${HOSTILE[$bot]} (got $st/${fault:-none})" \
    test "$st/$fault" = "rejected/${HOSTILE[$bot]}"
done
left=$(compose exec -T worker sh -c 'ls -d /sys/fs/cgroup/kaiser-seats/*/ /sys/fs/cgroup/memory/kaiser-* 2>/dev/null | wc -l')
info "seat cgroups left in the worker (matches may be running): $left"

# --- 8b. a /tmp slot's timestamps ----------------------------------------------------------
step "A bot that marks its /tmp slot (times, files): no seat after it finds the mark"
# tests/engine/hostile/leave_marks.py marks its /tmp (the slot: a file, its times, the slot
# root's times) in every game, looks for any other process's marks at start and at every
# decision, and at match_end leaves the slot empty with its times set (the mark most likely to
# survive). Two copies of it play each other (challenges), so every seat of those matches is a
# marker; they play ladder matches too. The worker must hand no slot on with a mark: the seats
# say what they found on stderr (read through the API), and the free slots are read in place.
MARK_S=1234567890  # leave_marks.py's mark
declare -a MARKERS=()
for side in a b; do
  if version=$(upload "$SRC/tests/engine/hostile/leave_marks.py" "smoke-leave-marks-$side"); then
    MARKERS+=("$version")
  else
    fail "upload of leave_marks.py ($side)"
  fi
done
if [[ ${#MARKERS[@]} == 2 ]] && wait_for "the markers' checks" "$TIMEOUT" all_checked "${MARKERS[@]}"; then
  mark_bots=$(for v in "${MARKERS[@]}"; do api GET "/api/v1/versions/$v/" | jq_py 'd["bot"]'; done | xargs echo)
  set -- $mark_bots
  challenged=""
  for n in 1 2 3; do
    m=$(api POST /api/v1/challenges/ -H 'Content-Type: application/json' \
      -d "{\"bot\": $1, \"opponent\": $2}" | jq_py 'd["id"]')
    [[ "$(status)" == 201 ]] && challenged="$challenged $m" || info "challenge: $(status) $(cat "$WORK/body")"
  done
  set --
  challenges_done() {
    local m
    for m in $challenged; do
      [[ "$(api GET "/api/v1/matches/$m/" | jq_py 'd["status"]')" =~ ^(finished|void|failed)$ ]] || return 1
    done
  }
  wait_for "the markers' challenges$challenged" "$TIMEOUT" challenges_done
  : > "$WORK/marks"
  for bot in $mark_bots; do
    for m in $(api GET "/api/v1/matches/?bot=$bot&status=finished" | jq_py '" ".join(str(r["id"]) for r in d["results"])'); do
      api GET "/api/v1/matches/$m/" >> "$WORK/marks"; echo >> "$WORK/marks"
    done
  done
  marks=$(python3 - "$WORK/marks" $mark_bots <<'PY'
import json, sys
bots = {int(b) for b in sys.argv[2:]}
seen = {}
for line in open(sys.argv[1]):
    if line.strip():
        match = json.loads(line)
        seen[match["id"]] = match
lines = []
for match in seen.values():
    for side in "ab":
        if match[side]["bot"] in bots:
            lines += (match.get(f"stderr_{side}") or "").splitlines()
def count(prefix, has=""):
    return sum(1 for l in lines if l.startswith(prefix) and has in l)
print(json.dumps({"matches": len(seen), "marked_tmp": count("LEFT", "tmp-times"),
                  "saw_own_mark": count("SELF", "/tmp times"), "reached_match_end": count("LOOKED"),
                  "found": [l for l in lines if l.startswith("FOUND")][:5]}))
PY
)
  info "the markers' processes: $marks"
  slots=$(for cid in $(compose ps -q worker); do docker exec "$cid" sh -c 'for s in "$KAISER_SANDBOX_TMP_SLOTS"/slot-*; do
    flock -n "$s" stat -c "%X %Y" "$s" || echo held; done'; done)
  free=$(grep -vc held <<< "$slots")
  marked=$(grep -cw "$MARK_S" <<< "$slots")
  info "the workers' free /tmp slots: $free (of $(wc -l <<< "$slots")), $marked carrying the mark"
  check "no marker process found another's mark ($(jq_py '"%d processes in %d matches marked their /tmp, %d saw their own mark" % (d["marked_tmp"], d["matches"], d["saw_own_mark"])' <<< "$marks"))" \
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); sys.exit(not (d["marked_tmp"] >= 8 and not d["found"]))' "$marks"
  check "no free /tmp slot of a worker carries a mark ($marked of $free)" test "$marked" = 0 -a "$free" -ge 1
fi

# --- 9. the ledger ------------------------------------------------------------------------
step "Nothing lost, nothing counted twice"
settled() { ledger | jq_py 'not d["running_expired"]' | grep -qx true; }
wait_for "no match on an expired lease" 180 settled
book=$(ledger)
info "ledger: $book"
check "every finished ladder match has one rating change per side" \
  test "$(jq_py 'd["sides_wrong"]' <<< "$book")" = "[]"
check "every finished match stored exactly one attempt's result" \
  test "$(jq_py 'd["stored_not_once"]' <<< "$book")" = "[]"
check "every entry's Elo and games equal its history replayed" \
  test "$(jq_py 'd["elo_mismatches"]' <<< "$book")" = "[]"
check "no match running on an expired lease" \
  test "$(jq_py 'd["running_expired"]' <<< "$book")" = "[]"
check "the killed worker's matches ($CUT) each have a lost attempt and finished" \
  python3 -c 'import json, sys; done = json.loads(sys.argv[1])["lost_then_finished"]
sys.exit(not sys.argv[2].split() or any(int(m) not in done for m in sys.argv[2].split()))' "$book" "$CUT"
check "no match failed or void" \
  test "$(jq_py 'd["matches"].get("failed", 0) + d["matches"].get("void", 0)' <<< "$book")" = 0

# --- 10. the stop --------------------------------------------------------------------------
step "Stop: a worker killed while its seats are frozen, then docker compose down -v"
# Compose stops the workers before seat-thaw (they depend on it); the killed worker's seats are
# thawed by seat-thaw (cgroup v1) and the container exits; then nothing of the stack is left.
if [[ "$KEEP" == 1 ]]; then
  info "--keep: not stopped"
else
  compose logs --no-color --timestamps > "$WORK/compose.log" 2>&1  # down takes the logs away
  LOGS_SAVED=1
  stack=$(compose ps -aq | xargs echo)
  wait_for "a match being played" 180 some_match_running
  victim=$(container_of "$(cat "$WORK/running")")
  [[ -n "$victim" ]] || victim=$(compose ps -q worker | head -1)
  if [[ "$CGROUP_LAYOUT" == v1 ]]; then
    docker logs -f "$(compose ps -q seat-thaw)" > "$WORK/seat-thaw.log" 2>&1 &
  fi
  docker events --since "$(date +%s)" --filter "label=com.docker.compose.project=$PROJECT" \
    --filter event=die --format '{{.TimeNano}} {{index .Actor.Attributes "com.docker.compose.service"}}' \
    > "$WORK/events" 2>&1 &
  events=$!
  sleep 1  # the listener subscribed (no event to wait for yet)
  [[ "$CGROUP_LAYOUT" == v1 ]] && victim_before=$(thaws "$victim")  # its log shows them too
  killed=$(seats kill-when-frozen "$(seats_dir "$victim")" "$victim" 120)
  info "killed ${victim:0:12}: $(jq_py '{k: d[k] for k in ("killed", "frozen", "docker_kill") if k in d}' <<< "$killed")"
  t0=$SECONDS
  timeout "$TIMEOUT" docker compose -p "$PROJECT" -f "$SRC/docker-compose.yml" \
    -f "$SRC/deploy/compose-cgroup-$CGROUP_LAYOUT.yml" --env-file "$ENV_FILE" \
    down -v --remove-orphans > "$WORK/down.log" 2>&1
  down=$?
  kill "$events" 2>/dev/null
  [[ "$down" == 0 ]] || tail -5 "$WORK/down.log" | sed 's/^/        /'
  check "docker compose down -v done (status $down) in $((SECONDS - t0)) s, a worker killed with $(jq_py 'len(d.get("frozen", []))' <<< "$killed") seat(s) frozen" \
    test "$down" = 0 -a "$(jq_py 'd["killed"]' <<< "$killed")" = true
  label="label=com.docker.compose.project=$PROJECT"
  left="$(docker ps -aq --filter "$label") $(docker volume ls -q --filter "$label") $(docker volume ls -q | grep "^${PROJECT}_") $(docker network ls -q --filter "$label") $(docker network ls --format '{{.Name}}' | grep "^${PROJECT}_")"
  check "nothing of the stack left: no container, volume or network (${left// /})" test -z "${left// /}"
  if [[ "$CGROUP_LAYOUT" == v1 ]]; then
    order=$(python3 -c 'import sys
died = [line.split() for line in open(sys.argv[1]) if len(line.split()) == 2]
workers = [int(t) for t, s in died if s in ("worker", "play-worker")]
thaw = [int(t) for t, s in died if s == "seat-thaw"]
print("ok" if workers and thaw and max(workers) <= min(thaw) else f"workers {sorted(workers)}, seat-thaw {thaw}")' "$WORK/events")
    check "every worker stopped before seat-thaw ($order)" test "$order" = ok
    thawed=$(( $(grep -c "seat-thaw: thawed .*${victim}" "$WORK/seat-thaw.log") - victim_before ))
    info "seat-thaw's log: $(grep -c 'seat-thaw: thawed' "$WORK/seat-thaw.log") thaws in all, $thawed of ${victim:0:12} during the stop"
    check "seat-thaw thawed the killed worker's frozen seats ($thawed)" \
      test "$thawed" -ge "$(( $(jq_py 'len(d.get("frozen", []))' <<< "$killed") > 0 ))"
    kept=0
    for id in $stack; do [[ -e "/sys/fs/cgroup/freezer/kaiser-arena/$id" ]] && kept=$((kept + 1)); done
    check "no freezer cgroup of the stack's containers left on the host ($kept)" test "$kept" = 0
  fi
fi
