#!/usr/bin/env bash
# test-pypy.sh: the Python suite on PyPy 3.11 (Debian forky's pypy3), in the
# forky chroot that tools/test-forky.sh builds and caches (FORKY_CACHE,
# default /var/cache/monostamp; run `make test-forky` once first).
#
# Under the same lock as test-forky.sh: the newest complete forky chroot
# gets pypy3, pypy3-dev and pypy3-venv if it lacks them (one built before
# they joined test-forky.sh's list), the host's pip configuration and local
# indexes (read-only), and the checkout's files in /src/monostamp-pypy;
# inside, tools/pypy-suite.sh installs the tree with pip into a PyPy venv
# and runs tests/python.  Needs root (chroot, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${FORKY_CACHE:-/var/cache/monostamp}
PYPY_DEBS="pypy3 pypy3-dev pypy3-venv"
say() { echo "test-pypy: $*"; }
die() { echo "test-pypy: $*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "needs root (chroot, mount)"
    exec sudo --preserve-env "$0" "$@"
fi
[ -d "$CACHE" ] || die "no $CACHE: run make test-forky first, which builds the chroot"
exec 9>"$CACHE/forky.lock"
flock -n 9 || { say "waiting for another run's lock on $CACHE/forky.lock"; flock 9; }

CHROOT=$(ls -td "$CACHE"/forky-*/.monostamp-forky-complete 2>/dev/null | head -n 1)
[ -n "$CHROOT" ] || die "no complete forky chroot in $CACHE: run make test-forky first"
CHROOT=$(dirname "$CHROOT")

mounted=() made=()
# Unmounts, then removes the mount points this run made (test-forky.sh
# binds a local index's topmost missing directory, which must stay missing).
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
    done
    for ((i = ${#made[@]} - 1; i >= 0; i--)); do rmdir "${made[i]}" 2>/dev/null || true; done
}
trap unmount_all EXIT
trap 'exit 130' INT TERM HUP
mount_in() { # type-or---bind source target-inside [ro]
    local dir="$CHROOT$3" top=""
    while [ ! -e "$dir" ]; do top=$dir; dir=$(dirname "$dir"); done
    if [ -n "$top" ]; then
        mkdir -p "$CHROOT$3"
        dir="$CHROOT$3"
        while [ "$dir" != "$(dirname "$top")" ]; do made=("$dir" "${made[@]}"); dir=$(dirname "$dir"); done
    fi
    if [ "$1" = --bind ]; then mount --bind "$2" "$CHROOT$3"; else mount -t "$1" "$2" "$CHROOT$3"; fi
    mounted+=("$CHROOT$3")
    [ "${4:-}" != ro ] || mount -o remount,bind,ro "$CHROOT$3"
}
mount_in proc proc /proc
mount_in sysfs sysfs /sys
mount_in --bind /dev /dev
mount_in --bind /dev/pts /dev/pts
mount_in tmpfs shm /dev/shm
rm -f "$CHROOT/etc/resolv.conf"
cp -L /etc/resolv.conf "$CHROOT/etc/resolv.conf"

if ! chroot "$CHROOT" dpkg-query -W $PYPY_DEBS >/dev/null 2>&1; then
    say "installing $PYPY_DEBS into $CHROOT"
    chroot "$CHROOT" env DEBIAN_FRONTEND=noninteractive sh -c \
        "apt-get -qq update && apt-get -qq install -y --no-install-recommends $PYPY_DEBS" >&2
fi

# pip as the host has it: its files, and the local directories they name.
for f in /etc/pip.conf "$HOME/.config/pip"; do
    [ -e "$f" ] || continue
    mkdir -p "$CHROOT$(dirname "$f")"
    rm -rf "${CHROOT:?}$f" && cp -a "$f" "$CHROOT$f"
done
for dir in $( { cat /etc/pip.conf "$HOME"/.config/pip/* 2>/dev/null; env | grep '^PIP_' || true; } |
              grep -oE '(file://)?/[^[:space:],;"'\'']+' | sed 's|^file://||; s|/simple/*$||' | sort -u); do
    if [ -d "$dir" ]; then mount_in --bind "$dir" "$dir" ro; fi
done

SRC=/src/monostamp-pypy
rm -rf --one-file-system "${CHROOT:?}$SRC"
mkdir -p "$CHROOT$SRC"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$CHROOT$SRC"
say "in $CHROOT: $(chroot "$CHROOT" pypy3 --version 2>&1 | tr '\n' ' ')"
chroot "$CHROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    LANG=C.UTF-8 TERM="${TERM:-dumb}" $(env | grep -E '^PIP_' || true) \
    /bin/bash "$SRC/tools/pypy-suite.sh"
