/*
 * patch.h: what the files of monostamp._patch share.  The extension makes
 * the standard library's wall clocks (time.time() and its kin,
 * datetime.now() and its kin) hand out monostamp's stamps while a
 * monostamp.patch() is active.  It is laid out as _monostamp is
 * (bindings/python/module.h), one job a file:
 *
 *     active.c          the active clock: its publication and the draws
 *     swap.c            the targets; saving, swapping and restoring ml_meth
 *     time_funcs.c      the replacements for the time module
 *     datetime_funcs.c  the replacements for datetime and date
 *     module.c          the module functions, exec and PyInit__patch
 *
 * How it reaches every caller.  A built-in function is a PyCFunctionObject
 * pointing at a PyMethodDef of its module (a static array in `time` and in
 * `_datetime`); every call, from Python or C, reads the C function pointer
 * ml_meth from that PyMethodDef.  Overwriting ml_meth therefore reaches
 * `from time import time` done long before, default arguments and C
 * callers alike, and the function objects keep their identity.  This is
 * time-machine's technique (see /work/shared/notes/patching.md); the code
 * is our own.  PyMethodDef's layout is not in the stable ABI, so this
 * module is built per CPython version, while _monostamp stays abi3.
 *
 * Where the stamps come from.  This module compiles no core of its own
 * (a second copy would hold a second default clock, a second sequence): it
 * calls _monostamp's core through the capsule of capi.h.
 *
 * Concurrency.  Install and uninstall (the ml_meth writes) and every change
 * of the active clock happen under swap.c's `switch_lock`.  The active
 * clock is one heap record, published by an atomic pointer: a replacement
 * loads it, copies it and takes a reference to its owner (the Clock
 * object), so a stop in another thread cannot free the clock under a draw.
 * With the GIL the load-copy-incref cannot interleave with a switch (both
 * hold the GIL, and neither releases it in between); free-threaded builds
 * take `ms_patch_read_lock` around it.  The ml_meth writes are plain stores
 * that the interpreter reads without synchronisation: safe with the GIL
 * (writer and readers hold it), a data race in principle on free-threaded
 * builds.
 * XXX: free-threaded builds are untested here (no such interpreter on the
 * build machine) and share time-machine's race on ml_meth.
 *
 * What it never touches: time.monotonic, perf_counter, process_time,
 * thread_time (patching them hangs asyncio and breaks timeouts).
 *
 * Private to bindings/python/patch/: the shared symbols are named
 * ms_patch_* and stay hidden (setup.py compiles with -fvisibility=hidden),
 * so the extension exports PyInit__patch alone.  Only datetime_funcs.c
 * includes datetime.h: it gives every file that includes it a static
 * PyDateTimeAPI of its own, which only that file's PyDateTime_IMPORT fills.
 */
#ifndef MONOSTAMP_PY_PATCH_H
#define MONOSTAMP_PY_PATCH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdatomic.h>
#include <stdint.h>

#include "monostamp.h"
#include "capi.h"

/* The _monostamp functions this module draws with: set by the exec slot,
 * before any replacement can be installed, and never changed. */
extern const ms_capi *ms_patch_api;

/* ------------------------------------------------------------ targets */

/* The functions a patch replaces, in the order of swap.c's table.  The
 * datetime ones come last (swap.c finds them in datetime's tables). */
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
    T_NOW,
    T_UTCNOW,
    T_TODAY,
    T_COUNT
};

/* The saved originals (swap.c: written once, by the first activation under
 * its lock, before anything is installed, and only read afterwards): what
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
    int may_wait;            /* release the GIL around a draw */
    PyInterpreterState *interp; /* the interpreter owner belongs to */
} active_clock;

/* The innermost patch's clock, or NULL: replacements then call the
 * originals.  Release/acquire: a reader that sees the pointer sees the
 * record's fields as written before it was published (active.c). */
extern _Atomic(active_clock *) ms_patch_active;

#ifdef Py_GIL_DISABLED
extern PyMutex ms_patch_read_lock;
#define READ_LOCK() PyMutex_Lock(&ms_patch_read_lock)
#define READ_UNLOCK() PyMutex_Unlock(&ms_patch_read_lock)
#else
#define READ_LOCK() ((void)0)
#define READ_UNLOCK() ((void)0)
#endif

/* Copies the active clock into *out with a new reference to its owner and
 * returns 1, or returns 0 when no patch is active in this interpreter.
 * Inline, here: every call of a patched function begins with it. */
static inline int acquire(active_clock *out)
{
    READ_LOCK();
    active_clock *a = atomic_load_explicit(&ms_patch_active, memory_order_acquire);
    if (a == NULL || a->interp != PyInterpreterState_Get()) {
        READ_UNLOCK();
        return 0;
    }
    *out = *a;
    Py_INCREF(out->owner);
    READ_UNLOCK();
    return 1;
}

#define RELEASE(a) Py_DECREF((a)->owner)

/* Publishes `next` (may be NULL) and returns the record it replaced, which
 * no reader can still be copying: the caller frees it with
 * ms_patch_free_active().  Under swap.c's lock. */
active_clock *ms_patch_swap_active(active_clock *next);

/* Drops the owner's reference and frees the record; NULL is allowed. */
void ms_patch_free_active(active_clock *a);

/* The kinds of stamp a replacement draws: ns or whole-µs UTC (offset 0),
 * or whole-µs with the clock's offset. */
enum { DRAW_TIME_NS, DRAW_TIME_US, DRAW_NOW_US };

/* One stamp of `kind` from the active clock `a`: 0, or -1 with the
 * exception raised (its context `call`). */
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

/* time_funcs.c, each written for the ml_flags swap.c's table gives it;
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

/* datetime_funcs.c: the class methods datetime.now (METH_FASTCALL |
 * METH_KEYWORDS), datetime.utcnow and date.today. */
PyObject *ms_patch_now(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames);
PyObject *ms_patch_utcnow(PyObject *cls, PyObject *unused);
PyObject *ms_patch_today(PyObject *cls, PyObject *unused);

/* datetime_funcs.c: imports datetime's C API for that file (see the top)
 * and returns 0, or -1 with the error.  The exec slot calls it first. */
int ms_patch_datetime_import(void);

/* datetime_funcs.c: the method table of the C type where datetime target
 * `t` lives (datetime.datetime's for T_NOW and T_UTCNOW, datetime.date's
 * for T_TODAY).  After ms_patch_datetime_import(). */
PyMethodDef *ms_patch_datetime_table(int t);

/* ------------------------------------------------------- swapping (swap.c) */

/* The name of target `t` for messages and _targets(): "time.time". */
const char *ms_patch_target_name(int t);

/* Makes the lock of install and uninstall, then finds the method tables'
 * entries and checks their calling conventions, once per process: 0, or
 * -1 with the error.  The exec slot calls it, last. */
int ms_patch_swap_init(void);

/* Takes `next` (a new record, owned) and, under the lock, installs the
 * replacements if they are not and publishes `next` as the active clock,
 * then frees the record it replaced and returns -1.  Or, when another tool
 * has one of the targets, changes nothing, frees `next` and returns that
 * target; the caller raises. */
int ms_patch_install(active_clock *next);

/* Puts the originals back where the replacements are, and forgets (frees)
 * the active clock. */
void ms_patch_uninstall(void);

/* 1 while the replacements are in the method tables. */
int ms_patch_installed(void);

/* The targets whose C function is neither the original nor ours: another
 * tool (time-machine) has them.  A new list of names, or NULL with the
 * error. */
PyObject *ms_patch_foreign_names(void);

#endif
