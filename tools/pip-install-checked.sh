#!/bin/sh
# Usage: tools/pip-install-checked.sh PYTHON LOG
#
# Installs the checkout into PYTHON's environment (pip install ., no build
# isolation, no dependencies) and fails if the build printed a warning:
# the compiler's on the binding and the core, and setuptools' own (a
# deprecated pyproject.toml key stops building on a date setuptools
# announces, so a warning today is a broken install later).  The whole
# build log is kept in LOG.
set -eu

python=$1
log=$2
cd "$(dirname "$0")/.."
mkdir -p "$(dirname "$log")"

# PYTHONDONTWRITEBYTECODE makes setuptools say it skipped byte-compiling:
# the caller's setting, not the package's, so the build runs without it.
if ! env -u PYTHONDONTWRITEBYTECODE "$python" -m pip install -v --disable-pip-version-check \
        --no-build-isolation --force-reinstall --no-deps . >"$log" 2>&1; then
    tail -n 40 "$log"
    # The compiler's errors sit far above pip's closing lines: name them last.
    grep -E ':[0-9]+(:[0-9]+)?: (fatal )?error: ' "$log" | head -n 20 >&2 || true
    echo "pip install . failed; the whole log: $log" >&2
    exit 1
fi
# pip's own notice about running as root is about the machine, not the build.
warnings=$(grep -i 'warning' "$log" | grep -v 'Running pip as the .root. user' || true)
if [ -n "$warnings" ]; then
    printf '%s\n' "$warnings"
    echo "pip install . printed the warnings above; the whole log: $log" >&2
    exit 1
fi
echo "pip install .: installed for $("$python" -c 'import sys; print(sys.executable)'), no warning"
