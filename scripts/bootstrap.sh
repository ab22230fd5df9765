#!/usr/bin/env bash
# Sourced by run.sh and test.sh: makes sure the machine has what the project needs.
# Idempotent and quiet when nothing is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
# gVisor: every seat its own kernel (engine/sandbox/gvisor.py). Without it (not root) the local
# runner plays on the host's kernel and says so; a server refuses to.
command -v runsc >/dev/null 2>&1 || need_apt+=(runsc)
# libseccomp's Python bindings: the sandbox's system-call filter (engine/sandbox/filter.py).
ls /usr/lib/python3/dist-packages/seccomp.cpython-311-*.so >/dev/null 2>&1 || need_apt+=(python3-seccomp)
if [ "${KAISER_WITH_BROWSER:-1}" = "1" ] && [ ! -x /usr/bin/chromium ]; then need_apt+=(chromium); fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing ${need_apt[*]} with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "bootstrap: missing ${need_apt[*]}; install them (apt-get install -y ${need_apt[*]})" >&2
  fi
fi

PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv" >&2
  "$PY" -m venv .venv
fi
# Debian's bindings are built for CPython 3.11: the virtualenv sees them through a link.
site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
for so in /usr/lib/python3/dist-packages/seccomp.cpython-311-*.so; do
  if [ -e "$so" ] && [ ! -e "$site/$(basename "$so")" ]; then ln -s "$so" "$site/"; fi
done
stamp=".venv/.bootstrap-stamp"
want="$(cat requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing Python packages" >&2
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
