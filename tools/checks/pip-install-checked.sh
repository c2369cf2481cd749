#!/bin/sh
# Usage: tools/checks/pip-install-checked.sh PYTHON LOG
#        tools/checks/pip-install-checked.sh --wheel DIR PYTHON LOG
#
# Builds the checkout with PYTHON's pip (no build isolation, no
# dependencies) and fails if the build printed a warning: the compiler's on
# the binding and the core, and setuptools' own (a deprecated pyproject.toml
# key stops building on a date setuptools announces, so a warning today is a
# broken install later).  The whole build log is kept in LOG.
#
# Plain: `pip install .` into PYTHON's environment.  --wheel DIR: `pip wheel
# .` into DIR (emptied first) and nothing installed, so that make test's
# suites share one build: test-python installs that wheel, test-exports
# reads its extension.
set -eu

wheel_dir=
if [ "${1:-}" = --wheel ]; then
    wheel_dir=$2
    shift 2
fi
python=$1
log=$2
cd "$(dirname "$0")/../.."
mkdir -p "$(dirname "$log")"

if [ -n "$wheel_dir" ]; then
    rm -rf "$wheel_dir"
    mkdir -p "$wheel_dir"
    set -- wheel -w "$wheel_dir"
    what="pip wheel ."
else
    set -- install --force-reinstall
    what="pip install ."
fi
# PYTHONDONTWRITEBYTECODE makes setuptools say it skipped byte-compiling:
# the caller's setting, not the package's, so the build runs without it.
if ! env -u PYTHONDONTWRITEBYTECODE "$python" -m pip "$@" -v --disable-pip-version-check \
        --no-build-isolation --no-deps . >"$log" 2>&1; then
    tail -n 40 "$log"
    # The compiler's errors sit far above pip's closing lines: name them last.
    grep -E ':[0-9]+(:[0-9]+)?: (fatal )?error: ' "$log" | head -n 20 >&2 || true
    echo "$what failed; the whole log: $log" >&2
    [ -z "$wheel_dir" ] || rm -rf "$wheel_dir"
    exit 1
fi
# pip's own notice about running as root is about the machine, not the build.
warnings=$(grep -i 'warning' "$log" | grep -v 'Running pip as the .root. user' || true)
if [ -n "$warnings" ]; then
    printf '%s\n' "$warnings"
    echo "$what printed the warnings above; the whole log: $log" >&2
    [ -z "$wheel_dir" ] || rm -rf "$wheel_dir"
    exit 1
fi
if [ -n "$wheel_dir" ]; then
    echo "pip wheel .: $(ls "$wheel_dir") for $("$python" -c 'import sys; print(sys.executable)'), no warning"
else
    echo "pip install .: installed for $("$python" -c 'import sys; print(sys.executable)'), no warning"
fi
