#!/bin/sh
# soak.sh [MINUTES [BUILD]]: 4 Python and 4 Lua processes stamp on one
# shared state file for MINUTES (default 10; decimals allowed) while, every
# few seconds, one of them chosen at random is killed with SIGKILL and
# started again.  Each process appends its stamps to a file of its own.
# At the end: no stamp appears twice in the union, each process's stamps
# increase, and so do each worker's across its restarts (every stamp of a
# killed process was handed out before its successor began).  Prints the
# figures and "N passed, N failed"; exits non-zero on any failure.
#
# Among the kills come events on the path itself (SOAK_EVENTS=0 turns them
# off): a Python worker told (SIGUSR1) to chdir() elsewhere and back (Lua
# has no chdir), a complete new state file renamed over the shared one,
# the shared file deleted, its directory renamed away and a new one made
# in its place, its value overwritten in place with 0, and the file
# truncated to 0 bytes.  Every worker opens it by the relative path
# "d/state" from the soak directory (MONOSTAMP_SHARED too), so a clock that
# followed the name from another working directory would split the
# sequence, and a file appearing in elsewhere/ is a failure.
#
# Half of each language's workers draw from Clock(shared=path) /
# clock{shared=path}, half from the default clock joined through
# MONOSTAMP_SHARED.  Everything lives in a private `mktemp -d` directory,
# removed on success and kept (and named) on failure.
#
# The Lua module is BUILD/lua/monostamp/core.so (`make lua`); the Python one is
# built from this checkout into BUILD/python-soak/ (not the installed
# monostamp, which may come from another tree).
#
# Environment: SOAK_BURST stamps per burst (100), SOAK_PAUSE_MS between
# bursts (20), SOAK_KILL_MAX_S the longest gap between kills (4; the gap is
# random from 1 s), PYTHON, LUA.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
MINUTES=${1:-10}
BUILD=${2:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
LUA=${LUA:-lua5.4}
BURST=${SOAK_BURST:-100}
PAUSE_MS=${SOAK_PAUSE_MS:-20}
KILL_MAX_S=${SOAK_KILL_MAX_S:-4}
EVENTS=${SOAK_EVENTS:-1}
SECONDS_TOTAL=$(awk -v m="$MINUTES" 'BEGIN { s = int(m * 60 + 0.5); if (s < 1) s = 1; print s }')
# The interpreter binary, not a pyenv shim: what we kill is then Python.
PY=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')

if [ ! -f "$BUILD/lua/monostamp/core.so" ]; then
    echo "soak: $BUILD/lua/monostamp/core.so is missing: run make lua" >&2
    exit 2
fi
DIR=$(mktemp -d "${TMPDIR:-/tmp}/monostamp-soak.XXXXXX")
echo "== soak: building the Python extension into $BUILD/python-soak"
if ! "$PY" setup.py --quiet build --build-base "$BUILD/python-soak/build" \
        --build-lib "$BUILD/python-soak/lib" >"$DIR/build.log" 2>&1; then
    cat "$DIR/build.log" >&2
    rm -rf "$DIR"
    exit 2
fi
STATE=d/state  # relative: workers start in $DIR
STOP="$DIR/stop"
mkdir "$DIR/out" "$DIR/err" "$DIR/elsewhere" "$DIR/d"

cat >"$DIR/worker.py" <<'EOF'
import os, signal, sys, time
import monostamp
path, out, mode, burst, pause_ms, stop = sys.argv[1:7]
burst, pause = int(burst), int(pause_ms) / 1000
home = os.getcwd()
def wander(signum, frame):
    # chdir elsewhere, or back: the clock must keep the file it opened.
    os.chdir(home if os.getcwd() != home else os.path.join(home, "elsewhere"))
signal.signal(signal.SIGUSR1, wander)
if mode == "clock":
    c = monostamp.Clock(shared=path)
    time_ns, now = c.time_ns, c.now
else:  # the default clock, joined to the file through MONOSTAMP_SHARED
    assert os.environ["MONOSTAMP_SHARED"] == path
    time_ns, now = monostamp.time_ns, monostamp.now
with open(out, "a") as f:
    while not os.path.exists(stop):
        batch = [now().utc_ns if i % 3 == 0 else time_ns() for i in range(burst)]
        f.write("\n".join(map(str, batch)) + "\n")
        f.flush()
        time.sleep(pause)
EOF
cat >"$DIR/worker.lua" <<'EOF'
local m = require "monostamp"
local path, out, mode, burst, pause_ms, stop = ...
burst, pause_ms = math.tointeger(burst), math.tointeger(pause_ms)
local src = m
if mode == "clock" then
  src = assert(m.clock{ shared = path })
else  -- the default clock, joined to the file through MONOSTAMP_SHARED
  assert(os.getenv("MONOSTAMP_SHARED") == path)
end
local function stopped()
  local f = io.open(stop, "r")
  if f then f:close() end
  return f ~= nil
end
local f = assert(io.open(out, "a"))
local batch = {}
while not stopped() do
  for i = 1, burst do
    local ns
    if i % 3 == 1 then ns = assert(src.now(src ~= m and src or nil))
    else ns = assert(src.time_ns(src ~= m and src or nil)) end
    batch[i] = string.format("%d", ns)
  end
  f:write(table.concat(batch, "\n", 1, burst), "\n")
  f:flush()
  assert(m.sleep_ns(pause_ms * 1000000))
end
f:close()
EOF

# Slot s (0..7): 0-3 Python, 4-7 Lua; even slots Clock(shared=), odd ones
# the default clock.  run_N is the slot's incarnation count, pid_N its pid.
lang_of() { if [ "$1" -lt 4 ]; then echo py; else echo lua; fi; }
mode_of() { if [ $(($1 % 2)) -eq 0 ]; then echo clock; else echo default; fi; }
start() { # slot
    s=$1
    eval "n=\$((\${run_$s:-0} + 1))"
    eval "run_$s=$n"
    lang=$(lang_of "$s")
    mode=$(mode_of "$s")
    out="$DIR/out/$lang-$s.$(printf %04d "$n")"
    err="$DIR/err/$lang-$s.$(printf %04d "$n")"
    shared=""
    [ "$mode" = default ] && shared=$STATE
    # cd in a subshell that execs the interpreter: $! is the worker itself.
    if [ "$lang" = py ]; then
        (cd "$DIR" && exec env MONOSTAMP_SHARED="$shared" PYTHONPATH="$BUILD/python-soak/lib" \
            "$PY" "$DIR/worker.py" "$STATE" "$out" "$mode" "$BURST" "$PAUSE_MS" "$STOP") \
            2>"$err" &
    else
        (cd "$DIR" && exec env MONOSTAMP_SHARED="$shared" LUA_CPATH="$BUILD/lua/?.so;;" \
            LUA_PATH="$ROOT/bindings/lua/?.lua;;" \
            "$LUA" "$DIR/worker.lua" "$STATE" "$out" "$mode" "$BURST" "$PAUSE_MS" "$STOP") \
            2>"$err" &
    fi
    eval "pid_$s=$!"
}

failures=""
fail() { failures="$failures
  FAIL: $*"; }
cleanup() {
    for s in 0 1 2 3 4 5 6 7; do
        eval "p=\${pid_$s:-}"
        [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true
    done
}
trap 'cleanup; echo "soak: interrupted; files kept in $DIR" >&2; exit 130' INT TERM

# A complete new state file, made by the library, renamed over the shared
# one while the workers stamp on it.
rename_over() {
    (cd "$DIR" && PYTHONPATH="$BUILD/python-soak/lib" "$PY" -c \
        'import monostamp; monostamp.Clock(shared="d/fresh")' && mv -f d/fresh "$STATE")
}

echo "== soak: 4 Python + 4 Lua processes on $DIR/$STATE for $SECONDS_TOTAL s, one event every 1-$KILL_MAX_S s"
for s in 0 1 2 3 4 5 6 7; do start "$s"; done
kills=0
died=0
chdirs=0
renames=0
deletes=0
dirs=0
overwrites=0
truncates=0
begin=$(date +%s)
while :; do
    now=$(date +%s)
    [ $((now - begin)) -lt "$SECONDS_TOTAL" ] || break
    gap=$(shuf -i 1-"$KILL_MAX_S" -n 1)
    left=$((SECONDS_TOTAL - (now - begin)))
    [ "$gap" -le "$left" ] || gap=$left
    sleep "$gap"
    # A worker that ended by itself is a failure: say why, start another.
    for s in 0 1 2 3 4 5 6 7; do
        eval "p=\$pid_$s"
        if ! kill -0 "$p" 2>/dev/null; then
            rc=0; wait "$p" || rc=$?
            eval "n=\$run_$s"
            fail "$(lang_of "$s")-$s run $n ended by itself (status $rc): $(tail -n 3 "$DIR/err/$(lang_of "$s")-$s.$(printf %04d "$n")" | tr '\n' ' ')"
            died=$((died + 1))
            start "$s"
        fi
    done
    [ $(($(date +%s) - begin)) -lt "$SECONDS_TOTAL" ] || break
    # Half the events are kills; the rest chdir, rename-over, delete, a
    # new directory, an overwrite with 0 and a truncation.
    event=kill
    if [ "$EVENTS" != 0 ]; then
        case $(shuf -i 0-11 -n 1) in
        6) event=chdir ;; 7) event=rename ;; 8) event=delete ;; 9) event=directory ;;
        10) event=overwrite ;; 11) event=truncate ;;
        esac
    fi
    case $event in
    kill)
        s=$(shuf -i 0-7 -n 1)
        eval "p=\$pid_$s"
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
        kills=$((kills + 1))
        start "$s"
        ;;
    chdir)
        s=$(shuf -i 0-3 -n 1)
        eval "p=\$pid_$s"
        kill -USR1 "$p" 2>/dev/null || true
        chdirs=$((chdirs + 1))
        ;;
    rename)
        if rename_over; then renames=$((renames + 1)); else fail "could not rename a new file over $STATE"; fi
        ;;
    delete)
        rm -f "$DIR/$STATE"
        deletes=$((deletes + 1))
        ;;
    directory)
        dirs=$((dirs + 1))
        if mv "$DIR/d" "$DIR/d.away.$dirs" && mkdir "$DIR/d"; then :; else fail "could not replace $DIR/d"; fi
        ;;
    overwrite)
        # The last stamp (8 bytes at offset 64) set to 0 where it lies.
        if [ -f "$DIR/$STATE" ] &&
            dd if=/dev/zero of="$DIR/$STATE" bs=8 seek=8 count=1 conv=notrunc 2>/dev/null; then
            overwrites=$((overwrites + 1))
        fi
        ;;
    truncate)
        if [ -f "$DIR/$STATE" ] && truncate -s 0 "$DIR/$STATE"; then truncates=$((truncates + 1)); fi
        ;;
    esac
done

# Ask the workers to stop between bursts; one still running 10 s later is
# a failure (and killed).
: >"$STOP"
for s in 0 1 2 3 4 5 6 7; do
    eval "p=\$pid_$s"
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$p" 2>/dev/null; then
        kill -9 "$p" 2>/dev/null || true
        fail "$(lang_of "$s")-$s did not stop within 10 s"
    fi
    rc=0; wait "$p" || rc=$?
    [ "$rc" -eq 0 ] || fail "$(lang_of "$s")-$s's last run exited with status $rc: $(tr '\n' ' ' <"$(ls "$DIR/err/$(lang_of "$s")-$s".* | tail -n 1)")"
done
elapsed=$(($(date +%s) - begin))

# A process killed mid-write may leave a last line without its newline:
# that stamp was never written whole, so it is dropped, and counted.
partial=0
for f in "$DIR"/out/*; do
    if [ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ]; then
        sed -i '$d' "$f"
        partial=$((partial + 1))
    fi
done

passed=0
check() { # description, then the command whose success is the check
    what=$1; shift
    if "$@"; then passed=$((passed + 1)); else fail "$what"; fi
}
well_formed() { ! grep -qv '^[0-9]\{19\}$' "$@"; }
# As strings: awk's numbers are doubles, which cannot tell 19-digit stamps
# apart (all lines are 19 digits, checked above, so the orders agree).
increasing() { awk 'NR > 1 && ($1 "") <= prev { bad = 1; exit } { prev = $1 "" } END { exit bad }' "$@"; }

processes=$(ls "$DIR/out" | wc -l)
for f in "$DIR"/out/*; do
    check "$(basename "$f"): malformed lines" well_formed "$f"
    check "$(basename "$f"): stamps do not increase" increasing "$f"
done
for s in 0 1 2 3 4 5 6 7; do
    l=$(lang_of "$s")
    # shellcheck disable=SC2046
    check "$l-$s: stamps do not increase across restarts" increasing $(ls "$DIR/out/$l-$s".*)
done

total=$(cat "$DIR"/out/* | wc -l)
py_total=$(cat "$DIR"/out/py-* | wc -l)
lua_total=$(cat "$DIR"/out/lua-* | wc -l)
cat "$DIR"/out/* | LC_ALL=C sort -S 25% -T "$DIR" | uniq -d >"$DIR/duplicates"
dups=$(wc -l <"$DIR/duplicates")
check "$dups stamps appear more than once (in $DIR/duplicates)" test "$dups" -eq 0
check "no stamps at all" test "$total" -gt 0
check "the Python workers wrote no stamps" test "$py_total" -gt 0
check "the Lua workers wrote no stamps" test "$lua_total" -gt 0
# A clock that followed the name from another working directory would have
# made its own file there.
check "a state file appeared in elsewhere/ (a chdir split the sequence)" \
    test ! -e "$DIR/elsewhere/$STATE"
check "a fresh file was left behind by a rename" test ! -e "$DIR/d/fresh"
if [ "$dups" -gt 0 ]; then
    head -n 3 "$DIR/duplicates" | while read -r d; do
        echo "  duplicate $d in: $(cd "$DIR/out" && grep -lx "$d" -- * | tr '\n' ' ')"
    done
fi

echo "soak: $elapsed s, $processes processes ($kills killed with -9 and restarted, $died ended by themselves)"
echo "soak: path events: $chdirs chdir, $renames rename-over, $deletes delete, $dirs directory replaced, $overwrites overwritten with 0, $truncates truncated"
echo "soak: $total stamps ($py_total Python, $lua_total Lua), $dups duplicates, $partial partial last lines dropped"
failed=$(printf '%s' "$failures" | grep -c 'FAIL:' || true)
[ -z "$failures" ] || printf '%s\n' "$failures" | sed '/^$/d'
echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ]; then
    rm -rf "$DIR"
else
    echo "soak: files kept in $DIR" >&2
    exit 1
fi
