#!/usr/bin/env bash
# Makes the Debian base image the pybroker image builds from when no image registry is
# reachable: Debian bookworm (minbase) with Python 3.11, pip and venv, built with mmdebstrap from
# the machine's own Debian mirror and imported as localhost/pybroker-base:bookworm.
#
#   scripts/base-image.sh [ENGINE]     # ENGINE: podman (default) or docker
#
# The root file system is cached as .cache/images/pybroker-base-bookworm.tar, so a later run only
# imports it (a few seconds); delete the tar to rebuild it. Needs root (mmdebstrap --mode=root).
# The machine's extra CA certificates (/usr/local/share/ca-certificates) go into the image, so
# that pip inside a build trusts the same proxies the host does. DEBIAN_MIRROR overrides the
# mirror read from /etc/apt.
set -euo pipefail
ENGINE=${1:-podman}
IMAGE=localhost/pybroker-base:bookworm
CACHE_DIR=.cache/images
TAR=$CACHE_DIR/pybroker-base-bookworm.tar

if "$ENGINE" image exists "$IMAGE" 2>/dev/null || "$ENGINE" image inspect "$IMAGE" >/dev/null 2>&1; then
    exit 0
fi

debian_mirror() {
    # the first Debian archive the machine's apt sources name (deb822 or one-line format)
    local uri
    uri=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
            | awk '{for (i = 2; i <= NF; i++) print $i}' | grep -E '/debian/?$' | head -n1 || true)
    if [ -z "$uri" ]; then
        uri=$(grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
                | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n1 | tr -d ' ' || true)
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}

if [ ! -s "$TAR" ]; then
    command -v mmdebstrap >/dev/null || { echo "mmdebstrap is missing: run make system-deps" >&2; exit 1; }
    mkdir -p "$CACHE_DIR"
    MIRROR=${DEBIAN_MIRROR:-$(debian_mirror)}
    echo "building the base image's root file system from $MIRROR (about half a minute)"
    started=$(date +%s)
    mmdebstrap --variant=minbase --mode=root --format=tar \
        --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --include=python3,python3-pip,python3-venv,ca-certificates \
        --aptopt='APT::Install-Recommends "false"' \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' \
        --customize-hook='if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then mkdir -p "$1/usr/local/share/ca-certificates"; cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"; chroot "$1" update-ca-certificates >/dev/null; fi' \
        --customize-hook='rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED' \
        --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
        bookworm "$TAR.part" "$MIRROR" >"$CACHE_DIR/mmdebstrap.log" 2>&1 \
        || { tail -n 40 "$CACHE_DIR/mmdebstrap.log" >&2; rm -f "$TAR.part"; exit 1; }
    mv "$TAR.part" "$TAR"
    echo "root file system built in $(( $(date +%s) - started )) s: $TAR"
fi

"$ENGINE" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
    --change 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["python3"]' \
    "$TAR" "$IMAGE" >/dev/null
echo "imported $IMAGE from $TAR"
