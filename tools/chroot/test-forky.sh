#!/usr/bin/env bash
# test-forky.sh: the suites on what Debian 12 lacks (CPython 3.14 and 3.15,
# Lua 5.5), from Debian testing ("forky"), in a chroot.
#
#   1. The chroot: tools/chroot/chroot.sh's forky_tests_chroot, Debian
#      testing's minbase with FORKY_PACKAGES, made once by mmdebstrap and
#      cached in CHROOT_CACHE (default /var/cache/monostamp), rebuilt when
#      its packages or the mirror change or when older than 7 days.
#   2. Each run: the host's name servers, extra CA certificates and pip
#      configuration go in (pip inside reaches the index as pip outside
#      does), and the checkout's files (tracked and new unignored ones, so
#      uncommitted work is tested, never build outputs) are copied to
#      /src/monostamp.
#   3. Inside, tools/chroot/forky-suites.sh runs `make test-python` on each
#      CPython and `make test-lua LUA=lua5.5`, and says which passed
#      (FORKY_PYTHONS and FORKY_LUAS choose others among those installed).
#      Or the script of tools/chroot/ named as the argument: make test-pypy
#      runs pypy-suite.sh, the Python suite on PyPy, in the same chroot.
#
# /proc, /sys, /dev, /dev/pts and /dev/shm are mounted for the run and
# unmounted on every exit, Ctrl-C included.  One run at a time uses the
# chroot (a lock file beside it: the copy of the tree is the chroot's).
# Needs root (mmdebstrap, chroot, mount).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SUITES=${1:-forky-suites.sh}
[ -f "tools/chroot/$SUITES" ] || { echo "test-forky: no tools/chroot/$SUITES" >&2; exit 2; }

say() { echo "test-forky: $*"; }
die() { echo "test-forky: $*" >&2; exit 1; }
started=$SECONDS
elapsed() { echo "$((SECONDS - started)) s"; }

if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "needs root (mmdebstrap, chroot, mount)"
    exec sudo --preserve-env "$0" "$@"
fi
. tools/chroot/chroot.sh
trap 'chroot_unmount_all' EXIT
trap 'echo "test-forky: interrupted" >&2; exit 130' INT TERM HUP

mkdir -p "$CHROOT_CACHE"
exec 9>"$CHROOT_CACHE/tests-forky.run.lock"
if ! flock -n 9; then
    say "waiting for another run's lock on $CHROOT_CACHE/tests-forky.run.lock"
    flock 9
fi
forky_tests_chroot || die "could not make the chroot"
# What a run killed with -9 left behind in it: its mounts, its mount points.
for m in $(chroot_mounts_under "$CHROOT"); do umount "$m" 2>/dev/null || umount -l "$m"; done
chroot_remove_made "$CHROOT"

chroot_mount_system "$CHROOT" || die "could not mount /proc, /sys, /dev in $CHROOT"
chroot_host_config "$CHROOT" || die "update-ca-certificates failed in the chroot"

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
    # A local index goes in from its root: its simple/ pages link to files
    # beside that folder.
    case "$dir" in */simple | */simple/) dir=${dir%/} && dir=${dir%/simple} ;; esac
    [ -d "$dir" ] || continue
    if [ -e "$CHROOT$dir" ]; then
        # An empty directory there (left by hand) is only a mount point.
        [ -d "$CHROOT$dir" ] && [ -z "$(ls -A "$CHROOT$dir")" ] || continue
        top=$dir
    else
        top="" rest=${dir#/}
        while :; do
            top="$top/${rest%%/*}"
            [ -e "$CHROOT$top" ] || break
            rest=${rest#*/}
        done
    fi
    chroot_mount "$CHROOT" --bind "$top" "$top"
    mount -o remount,bind,ro "$CHROOT$top"
done

SRC="$CHROOT/src/monostamp"
chroot_remove_tree "$SRC"
mkdir -p "$SRC"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$SRC"
say "copied $(find "$SRC" -type f | wc -l) files of $ROOT to /src/monostamp"

set +e
chroot "$CHROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin \
    LANG=C.UTF-8 TERM="${TERM:-dumb}" "${pip_env[@]}" \
    FORKY_PYTHONS="${FORKY_PYTHONS-3.14 3.15}" FORKY_LUAS="${FORKY_LUAS-lua5.5}" \
    FORKY_RUN="${FORKY_RUN-}" \
    /bin/bash "/src/monostamp/tools/chroot/$SUITES"
rc=$?
set -e
say "the tree and its build logs stay in $SRC until the next run"
say "done in $(elapsed)"
exit $rc
