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
# Needs Docker with Compose v2 (`docker compose`), curl and python3. Not part of the test
# suite: it takes minutes and the whole machine. It uses its own Compose project
# (kaiser-smoke), image name (kaiser-arena-smoke) and settings file (in a temporary folder),
# so an operator's .env and stack are left alone. Exit status 0 only if every check passed.
#
# What it checks: one image built once and run by web, worker and beat; the web healthcheck
# passing with an ALLOWED_HOSTS that does not contain localhost; /health/ and the worker's
# sandbox mode; the example bots uploaded through the API become active and play ladder
# matches; a replay; two workers; a worker killed mid-match with nothing lost or counted
# twice; hostile bots (memory hog, fork bomb, CPU spinner) stopped inside the container with
# the right fault.
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
    compose logs --no-color --timestamps > "$WORK/compose.log" 2>&1
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
if [[ -f "$SRC/engine/gvisor.py" ]]; then
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

upload() {  # FILE NAME: creates the bot and uploads FILE; prints the version id
  local file="$1" name="$2" bot
  bot=$(api POST /api/v1/bots/ -H 'Content-Type: application/json' -d "{\"name\": \"$name\"}" | jq_py 'd["id"]')
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
  if version=$(upload "$file" "$name"); then
    VERSIONS[$name]=$version
    BOTS[$name]=$(api GET "/api/v1/versions/$version/" | jq_py 'd["bot"]')
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
if wait_for "every example bot in a finished ladder match" "$TIMEOUT" every_bot_played; then
  pass "every example bot played a finished ladder match ($((SECONDS - t0)) s)"
else
  fail "every example bot played a finished ladder match"
fi
for name in "${!BOTS[@]}"; do info "$name: $(finished_of "${BOTS[$name]}") finished matches"; done
match=$(api GET "/api/v1/matches/?status=finished" | jq_py 'd["results"][0]["id"]')
replay=$(api GET "/api/v1/matches/$match/replay/")
info "replay of match $match: HTTP $(status), $(wc -c <<< "$replay") bytes, keys $(jq_py 'sorted(d)' <<< "$replay" 2>/dev/null)"
check "the replay of match $match is served (200, with its games)" \
  bash -c '[[ "$(cat "$1")" == 200 ]] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d.get(\"games\"))" "$2"' _ "$WORK/status" "$WORK/body"

# --- 7. two workers, one killed mid-match ---------------------------------------------------
step "Scale to two workers"
compose up -d --no-recreate --scale worker=2 --wait --wait-timeout "$TIMEOUT" > "$WORK/scale.log" 2>&1 \
  || { tail -5 "$WORK/scale.log"; fail "scaled to two workers"; }
# Only the ladder workers (celery@...): a play-worker service, if any, names itself play@...
two_workers() { api GET /health/ | jq_py 'len([n for n in d["workers"]["names"] if n.startswith("celery@")])' | grep -qx 2; }
check "/health/ reports two ladder workers" wait_for "two workers in /health/" 120 two_workers

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
  docker kill -s KILL "$victim" >/dev/null 2>"$WORK/kill.err" || info "docker kill: $(cat "$WORK/kill.err")"
  # A container that cannot die (on cgroup v1, a frozen seat outlives SIGKILL until thawed:
  # deploy/seat-thaw.sh) would still be "running" here and never play its matches again.
  wait_for "the killed worker's exit" 30 bash -c \
    '[[ $(docker inspect -f "{{.State.Status}}" "$1") == exited ]]' _ "$victim"
  check "the killed worker container exited (state $(docker inspect -f '{{.State.Status}}' "$victim"))" \
    test "$(docker inspect -f '{{.State.Status}}' "$victim")" = exited
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
