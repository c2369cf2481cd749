/* patch.h: monostamp.patch()'s C half: time.time() and datetime.now() and
 * their kin hand out the core's stamps while a patch is active.  patch.c
 * switches; patch_time.c and patch_datetime.c hold the replacements.  A
 * built-in function calls through the ml_meth of its PyMethodDef (static
 * tables in `time` and `_datetime`), so overwriting ml_meth reaches every
 * caller, C callers included (time-machine's technique; our own code).
 * monostamp/_patching.py switches under its lock, the GIL held, in the
 * main interpreter only: the tables are the process's, and so is a patch.
 * The active clock is one record behind an atomic pointer, read by the
 * main interpreter alone (whose GIL orders it against a stop); a
 * replacement copies it and references its owner, so a stop cannot free
 * the clock under a draw.  Other interpreters, each maybe under a GIL of
 * its own, never see the record or its owner (objects of the main
 * interpreter): while a patch on the default clock is active they draw
 * from the core's default clock, published apart (ms_patch_shared), which
 * lives as long as the process.  The ml_meth writes are atomic release
 * stores, so another interpreter's call reads either function whole.
 * time.monotonic and its kin are never touched (asyncio needs them). */
#ifndef MONOSTAMP_PY_PATCH_H
#define MONOSTAMP_PY_PATCH_H

#include "module.h"

/* The targets, in patch.c's table's order; datetime's last.  No
 * clock_gettime(_ns) and tzset on Windows. */
enum {
    T_TIME, T_TIME_NS, T_CLOCK_GETTIME, T_CLOCK_GETTIME_NS, T_GMTIME, T_LOCALTIME, T_CTIME,
    T_ASCTIME, T_STRFTIME, T_TZSET, T_NOW, T_UTCNOW, T_TODAY, T_COUNT
};

/* What a replacement calls when no patch is active or the arguments do
 * not ask for "now": saved by the first activation, then only read. */
extern PyCFunction ms_patch_originals[T_COUNT];

typedef PyObject *(*fast_kw_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

#define ORIGINAL(t) (ms_patch_originals[(t)])
#define ORIGINAL_FAST_KW(t) ((fast_kw_fn)(void (*)(void))ms_patch_originals[(t)])

typedef struct {
    PyObject *owner;            /* the Clock, or None for the default clock; owned */
    monostamp_clock *clock;     /* lives as long as owner */
    int64_t lead_bound_ns;      /* the patch's own lead bound, 0: none */
} active_clock;

/* A patch on the default clock draws under this lead bound, not the
 * clock's 1 s: unique µs cannot come faster than one per µs, and a tight
 * datetime.now() loop must not run whole seconds ahead of the wall clock.
 * A patch on a caller's Clock keeps its max_lead_ns. */
#define MS_PATCH_MAX_LEAD_NS INT64_C(5000000)

/* The innermost patch's clock, or NULL: the originals then answer.  Read
 * in the main interpreter only. */
extern _Atomic(active_clock *) ms_patch_active;
/* The core's default clock while the innermost patch draws from it, else
 * NULL: what the other interpreters' patched calls draw from. */
extern _Atomic(monostamp_clock *) ms_patch_shared;

/* 1 and a copy of the active clock, its owner referenced; 0 if no patch
 * reaches this interpreter.  Every patched call begins here. */
static inline int acquire(active_clock *out)
{
    if (PyInterpreterState_Get() == PyInterpreterState_Main()) {
        active_clock *a = atomic_load_explicit(&ms_patch_active, memory_order_acquire);
        if (a == NULL)
            return 0;
        *out = *a;
        Py_INCREF(out->owner);
        return 1;
    }
    monostamp_clock *shared = atomic_load_explicit(&ms_patch_shared, memory_order_acquire);
    if (shared == NULL)
        return 0;
    /* None is immortal (3.12+), or, before 3.12, every interpreter's one
     * GIL orders its count. */
    *out = (active_clock){Py_NewRef(Py_None), shared, MS_PATCH_MAX_LEAD_NS};
    return 1;
}

#define RELEASE(a) Py_DECREF((a)->owner)

/* ns or whole-µs UTC, or whole-µs with the clock's offset. */
enum { DRAW_TIME_NS = 0, DRAW_TIME_US = MONOSTAMP_DRAW_US,
       DRAW_NOW_US = MONOSTAMP_DRAW_US | MONOSTAMP_DRAW_OFFSET };

/* 0, or -1 with the error raised, its context `call`. */
int ms_patch_draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out);

/* patch_time.c (the _o ones: the METH_O clock_gettime(_ns) of some
 * versions) and patch_datetime.c: PyCFunctions, but for now(). */
typedef PyObject *ms_cfunction(PyObject *, PyObject *);
ms_cfunction ms_patch_time, ms_patch_time_ns, ms_patch_clock_gettime, ms_patch_clock_gettime_ns,
    ms_patch_clock_gettime_o, ms_patch_clock_gettime_ns_o, ms_patch_gmtime, ms_patch_localtime,
    ms_patch_ctime, ms_patch_asctime, ms_patch_strftime, ms_patch_tzset, ms_patch_utcnow,
    ms_patch_today;
PyObject *ms_patch_now(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames);

int ms_patch_datetime_import(void);
/* The method table of the datetime type where target `t` lives. */
PyMethodDef *ms_patch_datetime_table(int t);

/* patch.c: the patch's part of the exec slot. */
int ms_patch_exec(PyObject *module);
/* capi.c: the C API's capsule, _C_API, into the module. */
int ms_capi_exec(PyObject *module);

#endif
