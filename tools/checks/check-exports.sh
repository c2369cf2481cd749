#!/bin/sh
# Usage: tools/checks/check-exports.sh PREFIX FILE...
# Fails if a shared object exports a defined dynamic symbol whose name does
# not start with PREFIX: the core is compiled into libmonostamp.so, the
# Python extension and the Lua rock, which may share one process, so each
# must export its own entry points and nothing of the core's internals.
set -eu
prefix=$1
shift
status=0
for file in "$@"; do
    if [ ! -f "$file" ]; then
        echo "check-exports: $file: no such file" >&2
        status=1
        continue
    fi
    symbols=$(nm -D --defined-only "$file" | awk '{print $NF}')
    count=$(printf '%s\n' "$symbols" | grep -c . || true)
    stray=$(printf '%s\n' "$symbols" | grep -v "^$prefix" | grep . || true)
    if [ -n "$stray" ]; then
        echo "check-exports: $file exports symbols without the prefix '$prefix':" >&2
        printf '  %s\n' $stray >&2
        status=1
    elif [ "$count" -eq 0 ]; then
        echo "check-exports: $file exports nothing at all" >&2
        status=1
    else
        echo "check-exports: $file: $count symbols, all '$prefix*'"
    fi
done
exit $status
