# shellcheck shell=bash
# tools/chroot/chroot.sh: sourced by the scripts that run in a Debian
# chroot (tools/chroot/test-forky.sh, tools/dist/build.sh, tools/dist/test.sh):
# the one way this project makes, caches, mounts and unmounts a chroot.
#
# chroot_ready NAME SUITE ARCH VARIANT PACKAGES makes (once) and names in
# CHROOT a chroot of Debian SUITE for ARCH with PACKAGES, by mmdebstrap,
# cached in CHROOT_CACHE (default /var/cache/monostamp, outside any
# checkout, so a CI's fresh clone on the same machine reuses it) as
# NAME-KEY, KEY a hash of all that goes into it.  VARIANT is mmdebstrap's:
#
#   minbase   packages installed and configured (their maintainer scripts
#             run): a chroot to build and test in (make test-forky);
#   extract   packages unpacked alone, no script run, so an arm64 chroot
#             is made without qemu, in seconds; then the few files those
#             scripts would have written that the runs need
#             (chroot_configure).  Such a chroot must hold no compiler
#             (make dist's headers, make test-dist's compiler-free installs):
#             chroot_ready refuses one where cc, gcc or clang run.
#
# A chroot is built in NAME-KEY.tmp and renamed when complete (an
# interrupted build is never taken for a cache), rebuilt when older than
# CHROOT_MAX_AGE_DAYS (7: testing moves, its Pythons and tzdata with it);
# a failed refresh keeps the chroot that worked.  Once NAME-KEY is ready,
# the other NAME-* are stale and removed (never one with a mount in it).
# A foreign architecture (arm64) runs under qemu-user-static through
# binfmt_misc, mounted and registered first.  Needs root.

CHROOT_CACHE=${CHROOT_CACHE:-${DIST_CACHE:-${FORKY_CACHE:-/var/cache/monostamp}}}
CHROOT_MIRROR=${CHROOT_MIRROR:-${DIST_MIRROR:-${FORKY_MIRROR:-http://deb.debian.org/debian}}}
CHROOT_MAX_AGE_DAYS=${CHROOT_MAX_AGE_DAYS:-${DIST_MAX_AGE_DAYS:-${FORKY_MAX_AGE_DAYS:-7}}}
# Bumped when chroot_ready makes its chroots another way (part of the key;
# the extract variant's is the one its chroots were first cached under).
# shellcheck disable=SC2034  # read as ${!method} in chroot_ready
CHROOT_METHOD_extract=mmdebstrap-extract-1
# shellcheck disable=SC2034
CHROOT_METHOD_minbase=mmdebstrap-minbase-1

chroot_say() { echo "chroot: $*" >&2; }

# chroot_root: root, and mmdebstrap installed (tools/install-deps.sh).
chroot_root() {
    if [ "$(id -u)" != 0 ]; then
        chroot_say "needs root (mmdebstrap, chroot, mount)"
        return 1
    fi
    sh tools/install-deps.sh test-forky || return 1
    mkdir -p "$CHROOT_CACHE"
}

# binfmt_misc mounted and qemu's aarch64 handler registered, with the F flag
# (the interpreter opened now, so it runs inside a chroot that lacks it).
chroot_qemu() {
    sh tools/install-deps.sh test-dist || return 1
    if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || return 1
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    fi
    grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null || {
        chroot_say "qemu-aarch64 is not registered with binfmt_misc's F flag"
        return 1
    }
}

# ---------------------------------------------------------------- mounts
# chroot_mount ROOT TYPE-or---bind SOURCE TARGET-INSIDE; chroot_unmount_all
# undoes every mount made so far, last first (the callers trap EXIT to it).
# Mount points a run made are listed in the chroot and removed after, also
# after a killed run, so the next run sees the chroot as it was.
CHROOT_MOUNTED=()
CHROOT_MADE=.monostamp-mount-points
chroot_mount() {
    local target="$1$4"
    if [ ! -e "$target" ]; then
        mkdir -p "$target" || return 1
        echo "$target" >>"$1/$CHROOT_MADE"
    fi
    if [ "$2" = --bind ]; then
        mount --bind "$3" "$target" || return 1
    else
        mount -t "$2" "$3" "$target" || return 1
    fi
    CHROOT_MOUNTED+=("$target")
}
chroot_mount_system() { # root
    chroot_mount "$1" proc proc /proc &&
        chroot_mount "$1" sysfs sysfs /sys &&
        chroot_mount "$1" --bind /dev /dev &&
        chroot_mount "$1" --bind /dev/pts /dev/pts &&
        chroot_mount "$1" tmpfs shm /dev/shm
}
chroot_unmount_all() {
    local i
    for ((i = ${#CHROOT_MOUNTED[@]} - 1; i >= 0; i--)); do
        # A process left inside keeps a mount busy: detach it lazily then.
        umount "${CHROOT_MOUNTED[i]}" 2>/dev/null || umount -l "${CHROOT_MOUNTED[i]}" ||
            chroot_say "could not unmount ${CHROOT_MOUNTED[i]}"
    done
    CHROOT_MOUNTED=()
    chroot_remove_made "${CHROOT_ROOTS[@]}"
}
CHROOT_ROOTS=()
chroot_remove_made() { # root...: the mount points the runs made there
    local root
    for root in "$@"; do
        [ -f "$root/$CHROOT_MADE" ] || continue
        # rmdir removes nothing but an empty directory.
        sort -r "$root/$CHROOT_MADE" | xargs -r rmdir 2>/dev/null || true
        rm -f "$root/$CHROOT_MADE"
    done
}
chroot_mounts_under() { # dir: the mount points below it
    awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r
}
# Removes a tree that nothing is mounted in; never crosses a file system.
chroot_remove_tree() {
    local left
    left=$(chroot_mounts_under "$1")
    if [ -n "$left" ]; then
        chroot_say "not removing $1: still mounted there: $left"
        return 1
    fi
    rm -rf --one-file-system "$1"
}

# ---------------------------------------------------------------- the chroot
# chroot_configure ROOT: what the runs need of the packages' maintainer
# scripts, done from outside: the CA bundle that ca-certificates' would
# build (pip loads it at start, even with --no-index), and a passwd and
# group that know root (base-passwd's would).  The dynamic linker needs no
# ld.so.cache: Debian's searches the multiarch directories by default.
chroot_configure() {
    local root=$1
    if [ -d "$root/usr/share/ca-certificates" ]; then
        mkdir -p "$root/etc/ssl/certs"
        find "$root/usr/share/ca-certificates" -name '*.crt' -print0 | sort -z | xargs -0 cat \
            >"$root/etc/ssl/certs/ca-certificates.crt" || return 1
    fi
    [ -s "$root/etc/passwd" ] || echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
    [ -s "$root/etc/group" ] || echo 'root:x:0:' >"$root/etc/group"
}

# chroot_native_pip ROOT: for a chroot run under qemu, where CPython is ~50
# times slower: Debian's pip wheel unpacked into /opt/pip (each run's
# emulated CPython runs it from there, PYTHONPATH=/opt/pip, into a venv made
# --without-pip: no ensurepip copying and byte-compiling pip per venv), and
# the byte-code of the standard library and of pip compiled by a native
# CPython of the same version (the host's, else forky amd64's), as
# Debian's maintainer scripts would have compiled it under qemu.  The .pyc
# files hold no architecture; one from an interpreter whose magic number
# differs would be recompiled by the emulated one, so this changes speed,
# never results.
chroot_native_pip() {
    local root=$1 wheel py v native
    wheel=$(ls "$root"/usr/share/python-wheels/pip-*.whl 2>/dev/null | tail -n 1)
    [ -n "$wheel" ] || { chroot_say "no pip wheel in $root/usr/share/python-wheels"; return 1; }
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
        elif (dist_forky_amd64 && [ -x "$CHROOT/usr/bin/python$v" ] &&
                mkdir -p "$CHROOT/mnt/target" && mount --bind "$root" "$CHROOT/mnt/target" &&
                { chroot "$CHROOT" "/usr/bin/python$v" -m compileall -q -j 0 -s /mnt/target -p / \
                      "${dirs[@]/#//mnt/target/}" >/dev/null 2>&1
                  umount "$CHROOT/mnt/target"; }); then
            native="forky amd64's python$v"
        else
            chroot_say "no native CPython $v: its byte-code compiles under qemu as it runs"
            continue
        fi
        chroot_say "byte-compiled $v's standard library and pip with $native"
    done
}

# chroot_host_config ROOT: the host's name servers and extra CA
# certificates, for a minbase chroot whose apt and pip reach the network.
chroot_host_config() {
    # Not through a link in the chroot: it would resolve on the host.
    rm -f "$1/etc/resolv.conf"
    cp -L /etc/resolv.conf "$1/etc/resolv.conf"
    if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
        mkdir -p "$1/usr/local/share/ca-certificates"
        cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"
        chroot "$1" update-ca-certificates >/dev/null 2>&1 || return 1
    fi
}

# chroot_build DIR SUITE ARCH VARIANT PACKAGES LOG: mmdebstrap into DIR.
chroot_build() {
    local dir=$1 suite=$2 arch=$3 variant=$4 packages=$5 log=$6 hooks=()
    if [ "$variant" = extract ]; then
        # Merged /usr as Debian has it since 12: /bin, /sbin and /lib are
        # links into /usr (the ELF interpreter is /lib/ld-linux-*.so); with
        # no maintainer script run, nothing else makes them.
        hooks=(--setup-hook='for d in bin sbin lib; do ln -s usr/$d "$1/$d" && mkdir -p "$1/usr/$d" || exit 1; done')
    fi
    # shellcheck disable=SC2086
    mmdebstrap --variant="$variant" --arch="$arch" \
        --aptopt='Acquire::Check-Valid-Until "false"' "${hooks[@]}" \
        --include="$(echo $packages | tr ' ' ,)" "$suite" "$dir" "$CHROOT_MIRROR" >"$log" 2>&1
}

# chroot_ready NAME SUITE ARCH VARIANT PACKAGES: sets CHROOT to the ready
# chroot.  The lock on NAME.lock is held while it is made; a caller that
# needs the chroot alone for its run takes a lock of its own.
chroot_ready() {
    local name=$1 suite=$2 arch=$3 variant=$4 packages key method dir tmp stamp lock
    packages=$(echo $5)
    method=CHROOT_METHOD_$variant
    [ -n "${!method:-}" ] || { chroot_say "no variant $variant"; return 1; }
    key=$(printf '%s\n' "${!method}" "$CHROOT_MIRROR" "$suite" "$arch" $packages |
        sha256sum | cut -c1-12)
    dir="$CHROOT_CACHE/$name-$key"
    tmp="$dir.tmp"
    stamp="$dir/.monostamp-complete"
    chroot_root || return 1
    [ "$arch" = amd64 ] || chroot_qemu || return 1
    exec {lock}>"$CHROOT_CACHE/$name.lock"
    flock "$lock"
    # A killed run's mounts stay where they are: the lock is let go before
    # the chroot is used, so they may be another run's, and a tree with
    # mounts in it is never removed.
    chroot_remove_made "$tmp"
    [ -e "$tmp" ] && { chroot_remove_tree "$tmp" || return 1; }
    if [ -f "$stamp" ] && [ -z "$(find "$stamp" -mtime +"$CHROOT_MAX_AGE_DAYS")" ]; then
        chroot_say "reusing $dir (built $(cat "$stamp"))"
    else
        local t=$SECONDS log="$CHROOT_CACHE/$name.mmdebstrap.log" ok=1
        chroot_say "making Debian $suite/$arch ($variant) in $tmp: $packages"
        if ! chroot_build "$tmp" "$suite" "$arch" "$variant" "$packages" "$log"; then
            tail -n 20 "$log" >&2
            chroot_say "mmdebstrap failed: $log"
            ok=0
        elif [ "$variant" = extract ]; then
            chroot_configure "$tmp" || { chroot_say "could not configure $tmp"; ok=0; }
            if [ $ok = 1 ] && [ "$arch" != amd64 ]; then
                chroot_native_pip "$tmp" || { chroot_say "could not set up pip in $tmp"; ok=0; }
            fi
        fi
        if [ $ok = 1 ]; then
            date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/.monostamp-complete"
            if [ -e "$dir" ]; then
                mv -T "$dir" "$dir.old" && chroot_remove_tree "$dir.old" || return 1
            fi
            mv -T "$tmp" "$dir" || return 1
            chroot_say "$name ready in $dir ($((SECONDS - t)) s)"
        elif [ -f "$stamp" ]; then
            chroot_say "REFRESH FAILED: using the chroot of $(cat "$stamp") instead"
        else
            return 1
        fi
    fi
    local d
    for d in "$CHROOT_CACHE/$name"-*; do
        [ -d "$d" ] && [ "$d" != "$dir" ] && [ "$d" != "$tmp" ] && chroot_remove_tree "$d"
    done
    if [ "$variant" = extract ]; then
        local cc
        for cc in cc gcc clang c99; do
            if chroot "$dir" /bin/sh -c "command -v $cc" >/dev/null 2>&1; then
                chroot_say "$dir has a compiler ($cc): refusing it"
                return 1
            fi
        done
    fi
    exec {lock}>&-
    CHROOT=$dir
    CHROOT_ROOTS+=("$dir")
}

# ---------------------------------------------------------------- the chroots
# make test-forky's: Debian testing's CPython 3.14 and 3.15 and Lua 5.5 with
# what make test-python and make test-lua need (pkgconf: the Makefile finds
# each Lua's headers with pkg-config); PyPy 3.11 for make test-pypy.
# "tests-forky", not "forky": the debootstrap-made chroots of earlier trees
# are named forky-*, and each kind removes only its own stale ones.
FORKY_PACKAGES="python3.14 python3.14-dev python3.14-venv python3.15 python3.15-dev python3.15-venv
pypy3 pypy3-dev pypy3-venv
lua5.5 liblua5.5-dev lua5.4 liblua5.4-dev luarocks lua-busted lua-socket
gcc libc6-dev make pkgconf git tzdata ca-certificates libfaketime"
forky_tests_chroot() {
    chroot_ready tests-forky-amd64 forky amd64 minbase "$FORKY_PACKAGES"
}

# make dist's and make test-dist's, none with a compiler:
# forky amd64: 3.14 and 3.15, headers (make dist) and interpreters (make
# test-dist), libfaketime for the suite's wall-clock step tests.  forky arm64: 3.13-3.15 for the aarch64 wheels' tests.
# bookworm arm64: 3.11.  Debian has no arm64 CPython 3.10 or 3.12 any more:
# those two aarch64 wheels are built and checked by auditwheel, but not run.
# Each has what tools/dist/test.sh's runs call (bash, coreutils, sed, grep,
# dash as /bin/sh) and ca-certificates, whose bundle pip loads.
DIST_CHROOT_BASE="bash coreutils sed grep dash ca-certificates tzdata"
dist_forky_amd64() {
    chroot_ready dist-forky-amd64 forky amd64 extract "python3.14 python3.14-dev python3.14-venv
        python3.15 python3.15-dev python3.15-venv libfaketime $DIST_CHROOT_BASE"
}
dist_forky_arm64() {
    chroot_ready dist-forky-arm64 forky arm64 extract "python3.13 python3.13-venv python3.14
        python3.14-venv python3.15 python3.15-venv $DIST_CHROOT_BASE"
}
dist_bookworm_arm64() {
    chroot_ready dist-bookworm-arm64 bookworm arm64 extract "python3.11 python3.11-venv $DIST_CHROOT_BASE"
}
