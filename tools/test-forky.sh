#!/usr/bin/env bash
# test-forky.sh: the suites on what Debian 12 lacks (CPython 3.14 and 3.15,
# Lua 5.5), from Debian testing ("forky"), in a chroot.
#
#   1. The chroot: debootstrap's minbase of forky plus PACKAGES, built once
#      into FORKY_CACHE (default /var/cache/monostamp, outside the checkout,
#      so a CI's fresh clone on the same machine reuses it).  It is built in
#      a temporary directory and renamed when complete, so an interrupted
#      build is never taken for a cache; it is rebuilt when PACKAGES or the
#      mirror change, or when older than FORKY_MAX_AGE_DAYS (default 7:
#      testing moves, and its Pythons and tzdata with it).
#   2. Each run: the host's extra CA certificates and pip configuration go
#      in (pip inside reaches the index as pip outside does), and the
#      checkout's files (tracked and new unignored ones, so uncommitted work
#      is tested, never build outputs) are copied to /src/monostamp.
#   3. Inside, tools/forky-suites.sh runs `make test-python` on each CPython
#      and `make test-lua LUA=lua5.5`, and says which passed (FORKY_PYTHONS
#      and FORKY_LUAS choose others among those installed).
#
# /proc, /dev, /dev/pts, /dev/shm and /sys are mounted for the run and
# unmounted on every exit, Ctrl-C included.  One run at a time holds the
# cache (a lock file beside it).  Needs root (debootstrap, chroot, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

CACHE=${FORKY_CACHE:-/var/cache/monostamp}
MIRROR=${FORKY_MIRROR:-http://deb.debian.org/debian}
MAX_AGE_DAYS=${FORKY_MAX_AGE_DAYS:-7}
# pkgconf: the Makefile finds each Lua's headers with pkg-config.  pypy3:
# make test-pypy (tools/test-pypy.sh) runs the Python suite there.
PACKAGES="python3.14 python3.14-dev python3.14-venv python3.15 python3.15-dev python3.15-venv
pypy3 pypy3-dev pypy3-venv
lua5.5 liblua5.5-dev lua5.4 liblua5.4-dev luarocks lua-busted lua-socket
gcc libc6-dev make pkgconf git tzdata ca-certificates libfaketime"
APT="apt-get -qq -o Acquire::Check-Valid-Until=false -o Dpkg::Use-Pty=0"

say() { echo "test-forky: $*"; }
die() { echo "test-forky: $*" >&2; exit 1; }
started=$SECONDS
elapsed() { echo "$((SECONDS - started)) s"; }

if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "needs root (debootstrap, chroot, mount)"
    exec sudo --preserve-env "$0" "$@"
fi
if [ ! -x /usr/sbin/debootstrap ]; then
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
# Debian 12's debootstrap has no forky script; sid's bootstraps testing too.
SCRIPT=/usr/share/debootstrap/scripts/sid
[ -f "$SCRIPT" ] || die "no $SCRIPT"

mkdir -p "$CACHE"
exec 9>"$CACHE/forky.lock"
if ! flock -n 9; then
    say "waiting for another run's lock on $CACHE/forky.lock"
    flock 9
fi

# The cache's name changes with what goes into it.
key=$(printf '%s\n' "$MIRROR" $PACKAGES | sha256sum | cut -c1-12)
CHROOT="$CACHE/forky-$key"

# ---------------------------------------------------------------- mounts
mounted=()
# Mount points the run made (pip's directories) are listed in the chroot
# and removed after, also after a killed run, so the next run sees the
# chroot as it was.
MADE=.monostamp-mount-points
mount_in() { # root type-or---bind source target-inside
    local target="$1$4"
    if [ ! -e "$target" ]; then
        mkdir "$target" || return 1
        echo "$target" >>"$1/$MADE"
    fi
    if [ "$2" = --bind ]; then
        mount --bind "$3" "$target" || return 1
    else
        mount -t "$2" "$3" "$target" || return 1
    fi
    mounted+=("$target")
}
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        # A process left inside keeps a mount busy: detach it lazily then.
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" ||
            echo "test-forky: could not unmount ${mounted[i]}" >&2
    done
    mounted=()
    remove_made_mount_points
}
remove_made_mount_points() {
    local root
    for root in "$CHROOT" "$CHROOT.tmp"; do
        [ -f "$root/$MADE" ] || continue
        # rmdir removes nothing but an empty directory.
        sort -r "$root/$MADE" | xargs -r rmdir 2>/dev/null || true
        rm -f "$root/$MADE"
    done
}
mounts_under() { # dir: the mount points below it (left by a killed run)
    awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r
}
mount_system() { # root
    mount_in "$1" proc proc /proc &&
        mount_in "$1" sysfs sysfs /sys &&
        mount_in "$1" --bind /dev /dev &&
        mount_in "$1" --bind /dev/pts /dev/pts &&
        mount_in "$1" tmpfs shm /dev/shm
}
# Removes a tree that nothing is mounted in; never crosses a file system.
remove_tree() {
    local left
    left=$(mounts_under "$1")
    [ -z "$left" ] || die "not removing $1: still mounted there: $left"
    rm -rf --one-file-system "$1"
}
trap 'unmount_all' EXIT
trap 'echo "test-forky: interrupted" >&2; exit 130' INT TERM HUP

# What a run killed with -9 left behind: its mounts, half-built trees.
# Only in forky's own trees: the cache also holds make test-dist's chroots,
# which a run of that beside this one has mounted things in.
for d in "$CACHE"/forky-*; do
    for m in $(mounts_under "$d"); do umount "$m" 2>/dev/null || umount -l "$m"; done
done
remove_made_mount_points
for d in "$CACHE"/forky-*.tmp "$CACHE"/forky-*.old; do
    [ -e "$d" ] && remove_tree "$d"
done

# The chroot sees the host's name servers and extra CA certificates.
host_config() { # root
    # Not through a link in the chroot: it would resolve on the host.
    rm -f "$1/etc/resolv.conf"
    cp -L /etc/resolv.conf "$1/etc/resolv.conf"
    if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
        mkdir -p "$1/usr/local/share/ca-certificates"
        cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"
    fi
}

# ---------------------------------------------------------------- the chroot
# Called in an || list, where set -e does not act: each step says how it fails.
build_chroot() {
    local tmp="$CHROOT.tmp"
    say "bootstrapping Debian forky into $tmp (from $MIRROR)"
    mkdir -p "$tmp" || return 1
    if ! debootstrap --variant=minbase forky "$tmp" "$MIRROR" "$SCRIPT" >"$CACHE/debootstrap.log" 2>&1; then
        tail -n 20 "$CACHE/debootstrap.log" >&2
        say "debootstrap failed; the whole log: $CACHE/debootstrap.log" >&2
        return 1
    fi
    host_config "$tmp" || return 1
    # No daemons start inside while packages install.
    printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d" &&
        chmod +x "$tmp/usr/sbin/policy-rc.d" || return 1
    mount_system "$tmp" || { unmount_all; return 1; }
    local packages
    packages=$(echo $PACKAGES)
    say "installing: $packages"
    if ! chroot "$tmp" env DEBIAN_FRONTEND=noninteractive sh -c \
            "$APT update && $APT install -y --no-install-recommends $packages" \
            >"$CACHE/apt.log" 2>&1; then
        tail -n 20 "$CACHE/apt.log" >&2
        say "apt-get in the chroot failed; the whole log: $CACHE/apt.log" >&2
        unmount_all
        return 1
    fi
    chroot "$tmp" apt-get clean
    unmount_all
    date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/.monostamp-forky-complete" || return 1
    if [ -e "$CHROOT" ]; then
        mv -T "$CHROOT" "$CHROOT.old" || return 1
        remove_tree "$CHROOT.old"
    fi
    mv -T "$tmp" "$CHROOT" || return 1
    say "chroot ready in $CHROOT ($(elapsed))"
}

# A failed refresh (the mirror unreachable, a package gone from testing)
# keeps the chroot that worked, and says so; a failed first build fails.
stamp="$CHROOT/.monostamp-forky-complete"
if [ ! -f "$stamp" ]; then
    build_chroot || die "could not build the chroot"
elif [ -n "$(find "$stamp" -mtime +"$MAX_AGE_DAYS")" ]; then
    say "the chroot is older than $MAX_AGE_DAYS days: rebuilding it"
    build_chroot || say "REFRESH FAILED: testing the chroot of $(cat "$stamp") instead"
else
    say "reusing $CHROOT (built $(cat "$stamp"))"
fi
# Other keys' chroots are stale now.
for d in "$CACHE"/forky-*; do
    [ -d "$d" ] && [ "$d" != "$CHROOT" ] && remove_tree "$d"
done

# ---------------------------------------------------------------- this run
host_config "$CHROOT"
mount_system "$CHROOT"
chroot "$CHROOT" update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed in the chroot"

# pip's configuration as the host has it: the files, the PIP_* variables,
# and (read-only, at the same paths) the local directories they name as
# indexes or find-links, so pip inside finds what pip outside finds.  The
# topmost directory the chroot lacks goes in whole: a local index's pages
# link to files beside its simple/ folder.
pip_env=()
while IFS= read -r line; do pip_env+=("$line"); done < <(env | grep -E '^(PIP_|https?_proxy=|no_proxy=|HTTPS?_PROXY=|NO_PROXY=)' || true)
pip_files=()
for f in /etc/pip.conf /etc/xdg/pip "$HOME/.config/pip" "$HOME/.pip"; do
    [ -e "$f" ] || continue
    pip_files+=("$f")
    target="$CHROOT/root${f#"$HOME"}"
    case "$f" in "$HOME"/*) ;; *) target="$CHROOT$f" ;; esac
    rm -rf --one-file-system "$target"
    mkdir -p "$(dirname "$target")"
    cp -a "$f" "$target"
done
for dir in $( { [ ${#pip_files[@]} -eq 0 ] || find "${pip_files[@]}" -type f -exec cat {} +; printf '%s\n' "${pip_env[@]}"; } |
              grep -oE '(file://)?/[^[:space:],;"'\'']+' | sed 's|^file://||' | sort -u); do
    [ -d "$dir" ] && [ ! -e "$CHROOT$dir" ] || continue
    top="" rest=${dir#/}
    while :; do
        top="$top/${rest%%/*}"
        [ -e "$CHROOT$top" ] || break
        rest=${rest#*/}
    done
    mount_in "$CHROOT" --bind "$top" "$top"
    mount -o remount,bind,ro "$CHROOT$top"
done

SRC="$CHROOT/src/monostamp"
remove_tree "$SRC"
mkdir -p "$SRC"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$SRC"
say "copied $(find "$SRC" -type f | wc -l) files of $ROOT to /src/monostamp"

set +e
chroot "$CHROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
    LANG=C.UTF-8 TERM="${TERM:-dumb}" "${pip_env[@]}" \
    FORKY_PYTHONS="${FORKY_PYTHONS-3.14 3.15}" FORKY_LUAS="${FORKY_LUAS-lua5.5}" \
    /bin/bash /src/monostamp/tools/forky-suites.sh
rc=$?
set -e
say "the tree and its build logs stay in $SRC until the next run"
say "done in $(elapsed)"
exit $rc
