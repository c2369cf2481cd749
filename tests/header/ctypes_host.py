"""ctypes_host.py LIBMONOSTAMP: an FFI host that cannot size a C struct.

Python's ctypes, like LuaJIT's FFI, sees libmonostamp.so only through the
functions it exports.  This host never allocates a monostamp_clock: it makes
private clocks with monostamp_clock_new() and releases them with
monostamp_clock_free(), as csrc/monostamp.h tells FFI hosts to, and holds
them by pointer.  Run by `make test-header`; prints "N passed, N failed".
"""
import ctypes
import sys


class Options(ctypes.Structure):
    # monostamp_options, field for field (the header's public struct).
    _fields_ = [
        ("policy", ctypes.c_int),
        ("source", ctypes.c_int),
        ("zone", ctypes.c_char_p),
        ("max_lead_ns", ctypes.c_int64),
        ("on_lead", ctypes.c_int),
        ("shared_path", ctypes.c_char_p),
        ("has_start_ns", ctypes.c_int),
        ("start_ns", ctypes.c_int64),
        ("trust_group", ctypes.c_int),
    ]


class Stamp(ctypes.Structure):
    _fields_ = [("utc_ns", ctypes.c_int64), ("offset_s", ctypes.c_int32)]


MANUAL = 2
ENOZONE = -8
EINVAL = -1

passed = 0
failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("ctypes_host: FAIL:", what)


def main(path):
    lib = ctypes.CDLL(path)
    clock_p = ctypes.c_void_p  # opaque: the host never sees the layout
    lib.monostamp_options_init.argtypes = [ctypes.POINTER(Options)]
    lib.monostamp_options_init.restype = None
    lib.monostamp_clock_new.argtypes = [ctypes.POINTER(Options), ctypes.POINTER(clock_p)]
    lib.monostamp_clock_new.restype = ctypes.c_int
    lib.monostamp_clock_free.argtypes = [clock_p]
    lib.monostamp_clock_free.restype = None
    lib.monostamp_time_ns.argtypes = [clock_p, ctypes.POINTER(ctypes.c_int64)]
    lib.monostamp_time_ns.restype = ctypes.c_int
    lib.monostamp_now.argtypes = [clock_p, ctypes.POINTER(Stamp)]
    lib.monostamp_now.restype = ctypes.c_int
    lib.monostamp_strerror.argtypes = [ctypes.c_int]
    lib.monostamp_strerror.restype = ctypes.c_char_p

    def new(**fields):
        options = Options()
        lib.monostamp_options_init(ctypes.byref(options))
        for name, value in fields.items():
            setattr(options, name, value)
        out = clock_p()
        rc = lib.monostamp_clock_new(ctypes.byref(options), ctypes.byref(out))
        return rc, out

    # A realtime clock in a named zone: increasing stamps, the zone's offset.
    rc, clock = new(zone=b"Europe/Berlin")
    check(rc == 0 and clock.value, "clock_new: %d %s" % (rc, lib.monostamp_strerror(rc)))
    ns = ctypes.c_int64()
    last = -1
    increasing = True
    for _ in range(10000):
        check_rc = lib.monostamp_time_ns(clock, ctypes.byref(ns))
        increasing = increasing and check_rc == 0 and ns.value > last
        last = ns.value
    check(increasing, "10,000 stamps strictly increasing")
    stamp = Stamp()
    check(lib.monostamp_now(clock, ctypes.byref(stamp)) == 0 and stamp.offset_s in (3600, 7200),
          "Europe/Berlin's offset, got %d" % stamp.offset_s)
    lib.monostamp_clock_free(clock)

    # A manual clock: frozen at start_ns, each stamp the next nanosecond.
    rc, clock = new(source=MANUAL, has_start_ns=1, start_ns=1000)
    got = []
    for _ in range(3):
        lib.monostamp_time_ns(clock, ctypes.byref(ns))
        got.append(ns.value)
    check(rc == 0 and got == [1000, 1001, 1002], "manual stamps %r" % got)
    lib.monostamp_clock_free(clock)

    # Failures: a code and the core's sentence, and no clock to free.
    rc, clock = new(zone=b"Mars/Olympus_Mons")
    check(rc == ENOZONE and not clock.value, "unknown zone: %d" % rc)
    check(b"zone" in lib.monostamp_strerror(rc), lib.monostamp_strerror(rc))
    rc, clock = new(max_lead_ns=-1)
    check(rc == EINVAL and not clock.value, "max_lead_ns=-1: %d" % rc)
    lib.monostamp_clock_free(None)  # NULL is fine
    check(True, "free(NULL)")

    # Many clocks made and freed: no growth (a leak of 512-byte clocks and
    # their zones would show in megabytes).
    def rss_kb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4

    for _ in range(2000):
        lib.monostamp_clock_free(new(source=MANUAL)[1])
    before = rss_kb()
    for _ in range(20000):
        lib.monostamp_clock_free(new(source=MANUAL)[1])
    check(rss_kb() - before < 4096, "RSS grew by %d kB over 20,000 clocks" % (rss_kb() - before))

    print("ctypes_host: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ctypes_host.py path/to/libmonostamp.so")
    sys.exit(main(sys.argv[1]))
