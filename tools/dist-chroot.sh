# tools/dist-chroot.sh: sourced by tools/dist-build.sh and tools/dist-test.sh.
# Cached Debian chroots for make dist / make test-dist, kept beside
# make test-forky's in DIST_CACHE (default /var/cache/monostamp) and made the
# way tools/test-forky.sh makes its own: debootstrap's minbase plus a
# package list, built in NAME.tmp and renamed when complete (an interrupted
# build is never taken for a cache), rebuilt when the list, the mirror or
# the architecture change or when older than DIST_MAX_AGE_DAYS (7).
#
# None of them has a compiler: they hold Python headers for the headers-only
# builds and interpreters for the compiler-free installs (dist_chroot
# refuses a chroot where cc, gcc or clang run).  A foreign architecture
# (arm64) runs under qemu-user-static through binfmt_misc, which is mounted
# and registered first.  Needs root.

DIST_CACHE=${DIST_CACHE:-/var/cache/monostamp}
DIST_MIRROR=${DIST_MIRROR:-http://deb.debian.org/debian}
DIST_MAX_AGE_DAYS=${DIST_MAX_AGE_DAYS:-7}
DIST_APT="apt-get -qq -o Acquire::Check-Valid-Until=false -o Dpkg::Use-Pty=0"

dist_say() { echo "dist-chroot: $*" >&2; }

dist_root() {
    if [ "$(id -u)" != 0 ]; then
        dist_say "needs root (debootstrap, chroot, mount)"
        return 1
    fi
    local need="" p
    command -v debootstrap >/dev/null 2>&1 || need="$need debootstrap"
    [ -e /usr/share/debootstrap/scripts/sid ] || need="$need debootstrap"
    if [ -n "$need" ]; then
        dist_say "installing:$need"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null || return 1
    fi
    mkdir -p "$DIST_CACHE"
}

# binfmt_misc mounted and qemu's aarch64 handler registered, with the F flag
# (the interpreter opened now, so it runs inside a chroot that lacks it).
dist_qemu() {
    if [ ! -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] && ! command -v qemu-aarch64-static >/dev/null; then
        dist_say "installing qemu-user-static binfmt-support"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            qemu-user-static binfmt-support >/dev/null || return 1
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || return 1
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    fi
    grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null || {
        dist_say "qemu-aarch64 is not registered with binfmt_misc's F flag"
        return 1
    }
}

# ---------------------------------------------------------------- mounts
DIST_MOUNTED=()
dist_mount() { # root type-or---bind source target-inside
    local target="$1$4"
    mkdir -p "$target" || return 1
    if [ "$2" = --bind ]; then
        mount --bind "$3" "$target" || return 1
    else
        mount -t "$2" "$3" "$target" || return 1
    fi
    DIST_MOUNTED+=("$target")
}
dist_mount_system() { # root
    dist_mount "$1" proc proc /proc &&
        dist_mount "$1" --bind /dev /dev &&
        dist_mount "$1" tmpfs shm /dev/shm
}
dist_unmount_all() {
    local i
    for ((i = ${#DIST_MOUNTED[@]} - 1; i >= 0; i--)); do
        umount "${DIST_MOUNTED[i]}" 2>/dev/null || umount -l "${DIST_MOUNTED[i]}" ||
            dist_say "could not unmount ${DIST_MOUNTED[i]}"
    done
    DIST_MOUNTED=()
}
dist_mounts_under() {
    awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r
}
dist_remove_tree() {
    local left
    left=$(dist_mounts_under "$1")
    if [ -n "$left" ]; then
        dist_say "not removing $1: still mounted there: $left"
        return 1
    fi
    rm -rf --one-file-system "$1"
}

# ---------------------------------------------------------------- the chroot
# dist_chroot NAME SUITE ARCH PACKAGES: sets DIST_CHROOT to the ready chroot.
dist_chroot() {
    local name=$1 suite=$2 arch=$3 packages key dir tmp stamp
    packages=$(echo $4)
    key=$(printf '%s\n' "$DIST_MIRROR" "$suite" "$arch" $packages | sha256sum | cut -c1-12)
    dir="$DIST_CACHE/$name-$key"
    tmp="$dir.tmp"
    stamp="$dir/.monostamp-complete"
    [ "$arch" = amd64 ] || dist_qemu || return 1
    exec {lock}>"$DIST_CACHE/$name.lock"
    flock "$lock"
    for m in $(dist_mounts_under "$DIST_CACHE/$name-"); do umount -l "$m"; done
    [ -e "$tmp" ] && { dist_remove_tree "$tmp" || return 1; }
    if [ -f "$stamp" ] && [ -z "$(find "$stamp" -mtime +"$DIST_MAX_AGE_DAYS")" ]; then
        dist_say "reusing $dir (built $(cat "$stamp"))"
    else
        local t=$SECONDS
        dist_say "bootstrapping Debian $suite/$arch into $tmp"
        mkdir -p "$tmp"
        if ! debootstrap --variant=minbase --arch="$arch" "$suite" "$tmp" "$DIST_MIRROR" \
                /usr/share/debootstrap/scripts/sid >"$DIST_CACHE/$name.debootstrap.log" 2>&1; then
            tail -n 20 "$DIST_CACHE/$name.debootstrap.log" >&2
            dist_say "debootstrap failed: $DIST_CACHE/$name.debootstrap.log"
            return 1
        fi
        rm -f "$tmp/etc/resolv.conf"
        cp -L /etc/resolv.conf "$tmp/etc/resolv.conf"
        printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
        chmod +x "$tmp/usr/sbin/policy-rc.d"
        dist_mount_system "$tmp" || { dist_unmount_all; return 1; }
        dist_say "installing: $packages"
        if ! chroot "$tmp" env DEBIAN_FRONTEND=noninteractive sh -c \
                "$DIST_APT update && $DIST_APT install -y --no-install-recommends $packages && apt-get clean" \
                >"$DIST_CACHE/$name.apt.log" 2>&1; then
            tail -n 20 "$DIST_CACHE/$name.apt.log" >&2
            dist_say "apt-get in the chroot failed: $DIST_CACHE/$name.apt.log"
            dist_unmount_all
            return 1
        fi
        dist_unmount_all
        date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/.monostamp-complete"
        if [ -e "$dir" ]; then
            mv -T "$dir" "$dir.old" && dist_remove_tree "$dir.old" || return 1
        fi
        mv -T "$tmp" "$dir" || return 1
        dist_say "$name ready in $dir ($((SECONDS - t)) s)"
    fi
    local d
    for d in "$DIST_CACHE/$name"-*; do
        [ -d "$d" ] && [ "$d" != "$dir" ] && dist_remove_tree "$d"
    done
    local cc
    for cc in cc gcc clang c99; do
        if chroot "$dir" /bin/sh -c "command -v $cc" >/dev/null 2>&1; then
            dist_say "$dir has a compiler ($cc): refusing it"
            return 1
        fi
    done
    exec {lock}>&-
    DIST_CHROOT=$dir
}

# ---------------------------------------------------------------- the three
# forky amd64: 3.14 and 3.15, headers (make dist) and interpreters (make
# test-dist).  forky arm64: 3.13-3.15 for the aarch64 wheels' tests, with
# 3.14's and 3.15's headers for their builds.  bookworm arm64: 3.11.
# Debian has no arm64 CPython 3.10 or 3.12 any more: those two aarch64
# wheels are built and checked by auditwheel, but not run.
dist_forky_amd64() {
    dist_chroot dist-forky-amd64 forky amd64 "python3.14 python3.14-dev python3.14-venv
        python3.15 python3.15-dev python3.15-venv tzdata ca-certificates"
}
dist_forky_arm64() {
    dist_chroot dist-forky-arm64 forky arm64 "python3.13 python3.13-venv python3.14
        python3.14-dev python3.14-venv python3.15 python3.15-dev python3.15-venv tzdata"
}
dist_bookworm_arm64() {
    dist_chroot dist-bookworm-arm64 bookworm arm64 "python3.11 python3.11-venv tzdata"
}
