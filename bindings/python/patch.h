/*
 * patch.h: what the patch*.c files of _monostamp share: monostamp.patch()'s
 * C half, which makes the standard library's wall clocks (time.time() and
 * its kin, datetime.now() and its kin) hand out monostamp's stamps while a
 * patch is active.  One job a file:
 *
 *     patch.c            switching: the targets, saving, swapping and
 *                        restoring ml_meth, the active clock and its draws,
 *                        and the module functions monostamp/_patching.py calls
 *     patch_time.c       the replacements for the time module (time.tzset's
 *                        tells the zones they changed)
 *     patch_datetime.c   the replacements for datetime and date
 *
 * How it reaches every caller.  A built-in function is a PyCFunctionObject
 * pointing at a PyMethodDef of its module (a static array in `time` and in
 * `_datetime`); every call, from Python or C, reads the C function pointer
 * ml_meth from that PyMethodDef.  Overwriting ml_meth therefore reaches
 * `from time import time` done long before, default arguments and C
 * callers alike, and the function objects keep their identity.  The
 * technique is time-machine's (https://github.com/adamchainz/time-machine,
 * src/_time_machine.c); the code is our own.  PyMethodDef's layout and
 * the datetime types' method tables are not in the stable ABI: one more
 * reason the extension is built per CPython version.
 *
 * Where the stamps come from: the same core, and so the same default
 * clock, as monostamp.now(): one sequence.
 *
 * Concurrency.  The patch state is monostamp/_patching.py's: it calls
 * install and uninstall (the ml_meth writes, and every change of the
 * active clock) under its one lock, and each runs with the GIL held from
 * start to end, never letting it go.  The
 * active clock is one heap record, published by an atomic pointer: a
 * replacement loads it, copies it and takes a reference to its owner (the
 * Clock object), so a stop in another thread cannot free the clock under a
 * draw.  With the GIL the load-copy-incref cannot interleave with a switch
 * (both hold the GIL, and neither releases it in between).  A fork()
 * happens with the GIL held too, so a child never inherits a half-done
 * switch, and the C half has no lock for it to inherit held.  The ml_meth
 * writes are plain stores that the interpreter reads without
 * synchronisation: safe while one GIL orders writer and readers, a data
 * race on free-threaded builds and between interpreters with GILs of their
 * own.  So a patch starts only in the main interpreter and only with a GIL
 * (patch.c); free-threaded CPython is not available where this
 * is built and tested, and nothing here is claimed for it.
 *
 * What it never touches: time.monotonic, perf_counter, process_time,
 * thread_time (patching them hangs asyncio and breaks timeouts).
 *
 * The shared symbols are named ms_patch_* and stay hidden (setup.py
 * compiles with -fvisibility=hidden).  Only patch_datetime.c includes
 * datetime.h here: the header gives every file that includes it a static
 * PyDateTimeAPI of its own, which only that file's PyDateTime_IMPORT
 * fills (stamp_datetime.c has its own for the Stamp's conversions).
 */
#ifndef MONOSTAMP_PY_PATCH_H
#define MONOSTAMP_PY_PATCH_H

#include "module.h"

/* ------------------------------------------------------------ targets */

/* The functions a patch replaces, in the order of patch.c's table.  The
 * datetime ones come last (patch.c finds them in datetime's tables). */
enum {
    T_TIME,
    T_TIME_NS,
    T_CLOCK_GETTIME,
    T_CLOCK_GETTIME_NS,
    T_GMTIME,
    T_LOCALTIME,
    T_CTIME,
    T_ASCTIME,
    T_STRFTIME,
    T_TZSET, /* optional: not on Windows (patch.c skips a missing one) */
    T_NOW,
    T_UTCNOW,
    T_TODAY,
    T_COUNT
};

/* The saved originals (patch.c: written once, by the first activation,
 * before anything is installed, and only read afterwards): what
 * a replacement calls when no patch is active or the arguments are not
 * "now". */
extern PyCFunction ms_patch_originals[T_COUNT];

typedef PyObject *(*fast_kw_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

#define ORIGINAL(t) (ms_patch_originals[(t)])
#define ORIGINAL_FAST_KW(t) ((fast_kw_fn)(void (*)(void))ms_patch_originals[(t)])

/* -------------------------------------------------------- the active clock */

typedef struct {
    PyObject *owner;         /* the Clock, or None for the default clock; owned */
    monostamp_clock *clock;  /* lives as long as owner */
    PyInterpreterState *interp; /* the interpreter owner belongs to */
    int64_t lead_bound_ns;   /* the patch's own lead bound, 0: none */
} active_clock;

/* The lead bound of a patch on the default clock.  Unique µs cannot be
 * handed out faster than one per µs without running ahead of the wall
 * clock: a tight loop of datetime.now() calls (10 M/s) would lead by
 * whole seconds.  5 ms keeps every patched value within 5 ms of real time
 * and costs a loop that fast its speed above 1 M µs-calls/s; the default
 * clock's own 1 s bound stays for monostamp.now().  The core holds each
 * draw to it (monostamp_draw), against the clock's reference of real time,
 * so a wall clock set back never makes a patched call wait or fail.  A
 * patch on a Clock of the caller's keeps that clock's max_lead_ns. */
#define MS_PATCH_MAX_LEAD_NS INT64_C(5000000)

/* The innermost patch's clock, or NULL: replacements then call the
 * originals.  Release/acquire: a reader that sees the pointer sees the
 * record's fields as written before it was published (patch.c). */
extern _Atomic(active_clock *) ms_patch_active;

/* Copies the active clock into *out with a new reference to its owner and
 * returns 1, or returns 0 when no patch is active in this interpreter.
 * Inline, here: every call of a patched function begins with it. */
static inline int acquire(active_clock *out)
{
    active_clock *a = atomic_load_explicit(&ms_patch_active, memory_order_acquire);
    if (a == NULL || a->interp != PyInterpreterState_Get())
        return 0;
    *out = *a;
    Py_INCREF(out->owner);
    return 1;
}

#define RELEASE(a) Py_DECREF((a)->owner)

/* The kinds of stamp a replacement draws: ns or whole-µs UTC (offset 0),
 * or whole-µs with the clock's offset. */
enum {
    DRAW_TIME_NS = 0,
    DRAW_TIME_US = MONOSTAMP_DRAW_US,
    DRAW_NOW_US = MONOSTAMP_DRAW_US | MONOSTAMP_DRAW_OFFSET
};

/* One stamp of `kind` from the active clock `a`: 0, or -1 with the
 * exception raised (its context `call`).  patch.c. */
int ms_patch_draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out);

/* a / b and a % b rounded toward the past (b > 0). */
static inline int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        r += b;
        q -= 1;
    }
    *rem = r;
    return q;
}

/* ---------------------------------------------------- the replacements */

/* patch_time.c, each written for the ml_flags patch.c's table gives it;
 * the _o ones are the METH_O spelling some versions give clock_gettime(_ns). */
PyObject *ms_patch_time(PyObject *self, PyObject *unused);
PyObject *ms_patch_time_ns(PyObject *self, PyObject *unused);
PyObject *ms_patch_clock_gettime(PyObject *self, PyObject *args);
PyObject *ms_patch_clock_gettime_ns(PyObject *self, PyObject *args);
PyObject *ms_patch_clock_gettime_o(PyObject *self, PyObject *id);
PyObject *ms_patch_clock_gettime_ns_o(PyObject *self, PyObject *id);
PyObject *ms_patch_gmtime(PyObject *self, PyObject *args);
PyObject *ms_patch_localtime(PyObject *self, PyObject *args);
PyObject *ms_patch_ctime(PyObject *self, PyObject *args);
PyObject *ms_patch_asctime(PyObject *self, PyObject *args);
PyObject *ms_patch_strftime(PyObject *self, PyObject *args);
/* The replacement for time.tzset(): the original, then the zone engine
 * told at once. */
PyObject *ms_patch_tzset(PyObject *self, PyObject *unused);

/* patch_datetime.c: the class methods datetime.now (METH_FASTCALL |
 * METH_KEYWORDS), datetime.utcnow and date.today. */
PyObject *ms_patch_now(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames);
PyObject *ms_patch_utcnow(PyObject *cls, PyObject *unused);
PyObject *ms_patch_today(PyObject *cls, PyObject *unused);

/* patch_datetime.c: imports datetime's C API for that file (see the top)
 * and returns 0, or -1 with the error.  ms_patch_exec calls it. */
int ms_patch_datetime_import(void);

/* patch_datetime.c: the method table of the C type where datetime target
 * `t` lives (datetime.datetime's for T_NOW and T_UTCNOW, datetime.date's
 * for T_TODAY).  After ms_patch_datetime_import(). */
PyMethodDef *ms_patch_datetime_table(int t);

/* patch.c: the patch's part of the exec slot: datetime's C API for
 * patch_datetime.c, the method tables' entries, and the module functions
 * monostamp/_patching.py calls.  0, or -1 with the error. */
int ms_patch_exec(PyObject *module);

#endif
