# tools/chroot/chroot.sh: sourced by tools/dist/build.sh and tools/dist/test.sh.
# Cached Debian chroots for make dist / make test-dist, kept beside
# make test-forky's in DIST_CACHE (default /var/cache/monostamp): each is
# the packages of a list and their dependencies, unpacked by mmdebstrap's
# "extract" variant (no package is configured: no maintainer script runs,
# so an arm64 chroot is made without qemu, in seconds), then the few files
# those scripts would have written that the runs need (dist_configure).
# Built in NAME.tmp and renamed when complete (an interrupted build is never
# taken for a cache), rebuilt when the list, the mirror, the architecture or
# the way it is made change, or when older than DIST_MAX_AGE_DAYS (7).
#
# None of them has a compiler: they hold Python headers for the headers-only
# builds and interpreters for the compiler-free installs (dist_chroot
# refuses a chroot where cc, gcc or clang run).  A foreign architecture
# (arm64) runs under qemu-user-static through binfmt_misc, which is mounted
# and registered first.  Needs root.

DIST_CACHE=${DIST_CACHE:-/var/cache/monostamp}
DIST_MIRROR=${DIST_MIRROR:-http://deb.debian.org/debian}
DIST_MAX_AGE_DAYS=${DIST_MAX_AGE_DAYS:-7}
# Bumped when dist_chroot makes its chroots another way (part of the key).
DIST_CHROOT_METHOD=mmdebstrap-extract-1

dist_say() { echo "dist-chroot: $*" >&2; }

dist_root() {
    if [ "$(id -u)" != 0 ]; then
        dist_say "needs root (chroot, mount)"
        return 1
    fi
    local need="" p
    command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"
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
# dist_configure ROOT: what the runs need of the packages' maintainer
# scripts, done from outside: the CA bundle that ca-certificates' would
# build (pip loads it at start, even with --no-index), and a passwd and
# group that know root (base-passwd's would).  The dynamic linker needs no
# ld.so.cache: Debian's searches the multiarch directories by default.
dist_configure() {
    local root=$1
    if [ -d "$root/usr/share/ca-certificates" ]; then
        mkdir -p "$root/etc/ssl/certs"
        find "$root/usr/share/ca-certificates" -name '*.crt' -print0 | sort -z | xargs -0 cat \
            >"$root/etc/ssl/certs/ca-certificates.crt" || return 1
    fi
    [ -s "$root/etc/passwd" ] || echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
    [ -s "$root/etc/group" ] || echo 'root:x:0:' >"$root/etc/group"
}

# dist_native_pip ROOT: for a chroot run under qemu, where CPython is ~50
# times slower: Debian's pip wheel unpacked into /opt/pip (each run's
# emulated CPython runs it from there, PYTHONPATH=/opt/pip, into a venv made
# --without-pip: no ensurepip copying and byte-compiling pip per venv), and
# the byte-code of the standard library and of pip compiled by a native
# CPython of the same version (the host's, else forky amd64's), as
# Debian's maintainer scripts would have compiled it under qemu.  The .pyc
# files hold no architecture; one from an interpreter whose magic number
# differs would be recompiled by the emulated one, so this changes speed,
# never results.
dist_native_pip() {
    local root=$1 wheel py v native
    wheel=$(ls "$root"/usr/share/python-wheels/pip-*.whl 2>/dev/null | tail -n 1)
    [ -n "$wheel" ] || { dist_say "no pip wheel in $root/usr/share/python-wheels"; return 1; }
    mkdir -p "$root/opt/pip"
    python3 -m zipfile -e "$wheel" "$root/opt/pip" || return 1
    for py in "$root"/usr/bin/python3.*; do
        v=${py##*/python}
        [[ $v =~ ^3\.[0-9]+$ ]] || continue
        native=""
        for p in /usr/bin/python"$v" "$HOME"/.pyenv/versions/"$v".*/bin/python"$v"; do
            [ -x "$p" ] && { native=$p; break; }
        done
        local dirs=("usr/lib/python$v" opt/pip)
        if [ -n "$native" ]; then
            "$native" -m compileall -q -j 0 -s "$root" -p / "${dirs[@]/#/$root/}" >/dev/null 2>&1
        elif (dist_forky_amd64 && [ -x "$DIST_CHROOT/usr/bin/python$v" ] &&
                mkdir -p "$DIST_CHROOT/mnt/target" && mount --bind "$root" "$DIST_CHROOT/mnt/target" &&
                { chroot "$DIST_CHROOT" "/usr/bin/python$v" -m compileall -q -j 0 -s /mnt/target -p / \
                      "${dirs[@]/#//mnt/target/}" >/dev/null 2>&1
                  umount "$DIST_CHROOT/mnt/target"; }); then
            native="forky amd64's python$v"
        else
            dist_say "no native CPython $v: its byte-code compiles under qemu as it runs"
            continue
        fi
        dist_say "byte-compiled $v's standard library and pip with $native"
    done
}

# dist_chroot NAME SUITE ARCH PACKAGES: sets DIST_CHROOT to the ready chroot.
dist_chroot() {
    local name=$1 suite=$2 arch=$3 packages key dir tmp stamp lock
    packages=$(echo $4)
    key=$(printf '%s\n' "$DIST_CHROOT_METHOD" "$DIST_MIRROR" "$suite" "$arch" $packages |
        sha256sum | cut -c1-12)
    dir="$DIST_CACHE/$name-$key"
    tmp="$dir.tmp"
    stamp="$dir/.monostamp-complete"
    [ "$arch" = amd64 ] || dist_qemu || return 1
    exec {lock}>"$DIST_CACHE/$name.lock"
    flock "$lock"
    # A killed run's mounts stay where they are: the lock is let go before
    # the chroot is used, so they may be another run's (make dist beside
    # make test-dist), and a tree with mounts in it is never removed.
    [ -e "$tmp" ] && { dist_remove_tree "$tmp" || return 1; }
    if [ -f "$stamp" ] && [ -z "$(find "$stamp" -mtime +"$DIST_MAX_AGE_DAYS")" ]; then
        dist_say "reusing $dir (built $(cat "$stamp"))"
    else
        local t=$SECONDS
        dist_say "unpacking Debian $suite/$arch into $tmp: $packages"
        # Merged /usr as Debian has it since 12: /bin, /sbin and /lib are
        # links into /usr (the ELF interpreter is /lib/ld-linux-*.so).
        if ! mmdebstrap --variant=extract --arch="$arch" \
                --aptopt='Acquire::Check-Valid-Until "false"' \
                --setup-hook='for d in bin sbin lib; do ln -s usr/$d "$1/$d" && mkdir -p "$1/usr/$d" || exit 1; done' \
                --include="$(echo $packages | tr ' ' ,)" "$suite" "$tmp" "$DIST_MIRROR" \
                >"$DIST_CACHE/$name.mmdebstrap.log" 2>&1; then
            tail -n 20 "$DIST_CACHE/$name.mmdebstrap.log" >&2
            dist_say "mmdebstrap failed: $DIST_CACHE/$name.mmdebstrap.log"
            return 1
        fi
        dist_configure "$tmp" || { dist_say "could not configure $tmp"; return 1; }
        if [ "$arch" != amd64 ]; then
            dist_native_pip "$tmp" || { dist_say "could not set up pip in $tmp"; return 1; }
        fi
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
# test-dist), libfaketime for the suite's wall-clock step tests.  forky arm64: 3.13-3.15 for the aarch64 wheels' tests.
# bookworm arm64: 3.11.  Debian has no arm64 CPython 3.10 or 3.12 any more:
# those two aarch64 wheels are built and checked by auditwheel, but not run.
# Each has what tools/dist/test.sh's runs call (bash, coreutils, sed, grep,
# dash as /bin/sh) and ca-certificates, whose bundle pip loads.
DIST_CHROOT_BASE="bash coreutils sed grep dash ca-certificates tzdata"
dist_forky_amd64() {
    dist_chroot dist-forky-amd64 forky amd64 "python3.14 python3.14-dev python3.14-venv
        python3.15 python3.15-dev python3.15-venv libfaketime $DIST_CHROOT_BASE"
}
dist_forky_arm64() {
    dist_chroot dist-forky-arm64 forky arm64 "python3.13 python3.13-venv python3.14
        python3.14-venv python3.15 python3.15-venv $DIST_CHROOT_BASE"
}
dist_bookworm_arm64() {
    dist_chroot dist-bookworm-arm64 bookworm arm64 "python3.11 python3.11-venv $DIST_CHROOT_BASE"
}
