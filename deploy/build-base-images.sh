#!/usr/bin/env bash
# Stand-in base images for a machine that cannot pull from an image registry, built from
# Debian's packages with debootstrap (run as root, with debootstrap and Docker installed):
#
#   deploy/build-base-images.sh            # prints the settings to use, e.g. in .env
#
# It makes three local images:
#   kaiser-offline/debian:bookworm    debootstrap's bookworm (the app image's BASE_IMAGE),
#                                     trusting this machine's local CA certificates
#   kaiser-offline/postgres:15        Debian's PostgreSQL 15, set up from POSTGRES_DB/_USER/
#                                     _PASSWORD like the official image (POSTGRES_IMAGE)
#   kaiser-offline/redis:7            Debian's redis-server 7.0 (REDIS_IMAGE)
#
# The Debian mirror is the one this machine's apt uses (override: DEBIAN_MIRROR=URL). Nothing
# here is needed on a host that can pull debian, postgres and redis from Docker Hub.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PREFIX="${KAISER_OFFLINE_PREFIX:-kaiser-offline}"
SUITE=bookworm

log() { printf '[base-images] %s\n' "$*" >&2; }

# The first "debian" (not security) archive in this machine's apt sources, deb822 or one-line.
host_mirror() {
  local uri
  uri=$(awk '/^URIs:/ {u=$2} /^Suites:/ && u && $0 ~ /(^|[ \t])bookworm([ \t]|$)/ {print u; exit}' \
        /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  if [[ -z "$uri" ]]; then
    uri=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' \
          /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
  fi
  [[ -n "$uri" ]] || { log "no bookworm mirror in /etc/apt: set DEBIAN_MIRROR"; exit 1; }
  printf '%s\n' "$uri"
}

build_debian() {
  local image="$PREFIX/debian:$SUITE" mirror rootfs
  if docker image inspect "$image" >/dev/null 2>&1 && [[ "${KAISER_OFFLINE_REBUILD:-0}" != 1 ]]; then
    log "$image exists (KAISER_OFFLINE_REBUILD=1 to build it again)"
    return
  fi
  command -v debootstrap >/dev/null || { log "debootstrap is missing: apt-get install debootstrap"; exit 1; }
  mirror="${DEBIAN_MIRROR:-$(host_mirror)}"
  rootfs=$(mktemp -d /tmp/kaiser-rootfs.XXXXXX)
  trap 'rm -rf "$rootfs"' RETURN
  log "debootstrap $SUITE from $mirror (a few minutes)"
  debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$rootfs" "$mirror" \
    > "$rootfs.log" 2>&1 || { tail -20 "$rootfs.log" >&2; exit 1; }
  rm -f "$rootfs.log"
  # The machine's own CA certificates (e.g. a TLS-inspecting egress proxy's), so that pip in a
  # build reaches the package index exactly as it does on this host.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
    chroot "$rootfs" update-ca-certificates >/dev/null 2>&1
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$image" >/dev/null
  log "built $image"
}

build_service() {  # name tag
  local image="$PREFIX/$1:$2"
  if docker image inspect "$image" >/dev/null 2>&1 && [[ "${KAISER_OFFLINE_REBUILD:-0}" != 1 ]]; then
    log "$image exists"
    return
  fi
  log "building $image"
  docker build --build-arg "BASE_IMAGE=$PREFIX/debian:$SUITE" -t "$image" \
    -f "offline/$1.Dockerfile" offline > "/tmp/kaiser-build-$1.log" 2>&1 \
    || { tail -20 "/tmp/kaiser-build-$1.log" >&2; exit 1; }
  rm -f "/tmp/kaiser-build-$1.log"
  log "built $image"
}

build_debian
build_service postgres 15
build_service redis 7
cat <<SETTINGS
BASE_IMAGE=$PREFIX/debian:$SUITE
POSTGRES_IMAGE=$PREFIX/postgres:15
REDIS_IMAGE=$PREFIX/redis:7
SETTINGS
