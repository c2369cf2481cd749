#!/bin/sh
# pin-zones.sh: refreshes the TZif files the test vectors are computed from
# (tests/vectors/zoneinfo) out of a zone database, and names its release
# in tests/vectors/zoneinfo/README.md.
#
#   tools/checks/pin-zones.sh [SRC] [NAME...]
#
# SRC is a zoneinfo directory (default /usr/share/zoneinfo).  Copied: every
# zone already pinned, every IANA name in the vectors' zone column, and each
# NAME given (IANA names: no digit, "<" or ","; POSIX TZ strings need no
# file).  The committed files are the truth: run this only to move the
# vectors to another tzdata release, then recompute the vectors' offsets from
# that release and commit both together.
set -eu

src=${1:-/usr/share/zoneinfo}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")/../.." && pwd)
dest=$here/tests/vectors/zoneinfo

release=$(sed -n '1s/^# version //p' "$src/tzdata.zi" 2>/dev/null || true)
[ -n "$release" ] || { echo "pin-zones.sh: no release named in $src/tzdata.zi" >&2; exit 1; }

names=$( {
    (cd "$dest" && find . -type f ! -name README.md | sed 's|^\./||')
    for v in zone_offsets.tsv iso8601.tsv; do
        grep -v '^#' "$here/tests/vectors/$v" | cut -f2
    done
    for n in "$@"; do echo "$n"; done
} | grep '^[A-Z][A-Za-z_/+-]*$' | sort -u)

for n in $names; do
    head -c 5 "$src/$n" | grep -q '^TZif[234]$' ||
        { echo "pin-zones.sh: $src/$n is not a TZif file of version 2 or later" >&2; exit 1; }
    mkdir -p "$dest/$(dirname "$n")"
    cp "$src/$n" "$dest/$n"
    echo "$n"
done
sed -i "s/^Release: .*/Release: $release/" "$dest/README.md"
echo "pinned $(echo "$names" | wc -l) zones of tzdata $release into $dest"
