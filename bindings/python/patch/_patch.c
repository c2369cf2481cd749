/*
 * _patch.c: monostamp._patch, which makes the standard library's wall
 * clocks (time.time() and its kin, datetime.now() and its kin) hand out
 * monostamp's stamps while a monostamp.patch() is active.
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
 * of the active clock happen under `switch_lock`.  The active clock is one
 * heap record, published by an atomic pointer: a replacement loads it,
 * copies it and takes a reference to its owner (the Clock object), so a
 * stop in another thread cannot free the clock under a draw.  With the GIL
 * the load-copy-incref cannot interleave with a switch (both hold the
 * GIL, and neither releases it in between); free-threaded builds take
 * `read_lock` around it.  The ml_meth writes are plain stores that the
 * interpreter reads without synchronisation: safe with the GIL (writer and
 * readers hold it), a data race in principle on free-threaded builds.
 * XXX: free-threaded builds are untested here (no such interpreter on the
 * build machine) and share time-machine's race on ml_meth.
 *
 * What it never touches: time.monotonic, perf_counter, process_time,
 * thread_time (patching them hangs asyncio and breaks timeouts).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>

#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
#include <dlfcn.h> /* dladdr: pyconfig.h defines _GNU_SOURCE on glibc */
#define MS_HAVE_DLADDR 1
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "monostamp.h"
#include "capi.h"

/* The _monostamp functions this module draws with: set by the exec slot,
 * before any replacement can be installed, and never changed. */
static const ms_capi *api;

/* ------------------------------------------------------------ targets */

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

/* The method table entries (found by the first exec) and the saved
 * originals (written once, by the first activation under switch_lock,
 * before anything is installed, and only read afterwards). */
static PyMethodDef *defs[T_COUNT];
static PyCFunction originals[T_COUNT];
/* The replacement chosen for the flags each def has (see `specs`). */
static PyCFunction chosen[T_COUNT];
static int saved;
/* 1 while the replacements are in the method tables; under switch_lock. */
static int installed;
static PyThread_type_lock switch_lock;

typedef PyObject *(*fast_kw_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

#define ORIGINAL(t) (originals[(t)])
#define ORIGINAL_FAST_KW(t) ((fast_kw_fn)(void (*)(void))originals[(t)])

/* -------------------------------------------------------- the active clock */

typedef struct {
    PyObject *owner;         /* the Clock, or None for the default clock; owned */
    monostamp_clock *clock;  /* lives as long as owner */
    int may_wait;            /* release the GIL around a draw */
    PyInterpreterState *interp; /* the interpreter owner belongs to */
} active_clock;

/* The innermost patch's clock, or NULL: replacements then call the
 * originals.  Release/acquire: a reader that sees the pointer sees the
 * record's fields as written before it was published. */
static _Atomic(active_clock *) active;

#ifdef Py_GIL_DISABLED
static PyMutex read_lock;
#define READ_LOCK() PyMutex_Lock(&read_lock)
#define READ_UNLOCK() PyMutex_Unlock(&read_lock)
#else
#define READ_LOCK() ((void)0)
#define READ_UNLOCK() ((void)0)
#endif

/* Copies the active clock into *out with a new reference to its owner and
 * returns 1, or returns 0 when no patch is active in this interpreter. */
static int acquire(active_clock *out)
{
    READ_LOCK();
    active_clock *a = atomic_load_explicit(&active, memory_order_acquire);
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
 * no reader can still be copying: the caller frees it with free_active(). */
static active_clock *swap_active(active_clock *next)
{
    READ_LOCK();
    active_clock *old = atomic_exchange_explicit(&active, next, memory_order_acq_rel);
    READ_UNLOCK();
    return old;
}

static void free_active(active_clock *a)
{
    if (a == NULL)
        return;
    Py_DECREF(a->owner);
    PyMem_RawFree(a);
}

/* ----------------------------------------------------------- the draws */

enum { DRAW_TIME_NS, DRAW_TIME_US, DRAW_NOW_US };

/* One stamp of `kind` from the active clock `a`: 0, or -1 with the
 * exception raised (its context `call`). */
static int draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out)
{
    int rc;
    if (a->may_wait) {
        Py_BEGIN_ALLOW_THREADS
        rc = kind == DRAW_NOW_US ? api->now_us(a->clock, out)
             : kind == DRAW_TIME_US ? api->time_us(a->clock, &out->utc_ns)
                                    : api->time_ns(a->clock, &out->utc_ns);
        Py_END_ALLOW_THREADS
    } else {
        rc = kind == DRAW_NOW_US ? api->now_us(a->clock, out)
             : kind == DRAW_TIME_US ? api->time_us(a->clock, &out->utc_ns)
                                    : api->time_ns(a->clock, &out->utc_ns);
    }
    if (rc != MONOSTAMP_OK) {
        api->raise_error(a->owner, rc, call);
        return -1;
    }
    if (kind != DRAW_NOW_US)
        out->offset_s = 0;
    return 0;
}

/* ------------------------------------------------------ calendar fields */

typedef struct {
    int year, month, day, hour, minute, second, us;
} fields;

/* a / b and a % b rounded toward the past (b > 0). */
static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        r += b;
        q -= 1;
    }
    *rem = r;
    return q;
}

/*
 * The civil fields of `us` microseconds since 1970-01-01T00:00:00 (of the
 * wall clock wanted: UTC, or local time with the offset added).  Days to a
 * date in the proleptic Gregorian calendar by eras of 400 years (146097
 * days), as in Howard Hinnant's civil_from_days.  Any int64 ns stamp plus
 * an offset under a day is within years 1677..2262, inside datetime's
 * range, and every intermediate value here fits an int64 easily.
 */
static void fields_of_us(int64_t us, fields *f)
{
    int64_t us_in_day, days = floor_div(us, INT64_C(86400000000), &us_in_day);
    int64_t z = days + 719468, doe;
    int64_t era = floor_div(z, 146097, &doe);
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t month = mp < 10 ? mp + 3 : mp - 9;
    f->year = (int)(yoe + era * 400 + (month <= 2));
    f->month = (int)month;
    f->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    f->hour = (int)(us_in_day / INT64_C(3600000000));
    f->minute = (int)(us_in_day / 60000000 % 60);
    f->second = (int)(us_in_day / 1000000 % 60);
    f->us = (int)(us_in_day % 1000000);
}

/* The UTC fields of the whole-µs stamp `s`, or its local wall fields at
 * its own offset. */
static void utc_fields(const monostamp_stamp *s, fields *f)
{
    int64_t ns_rem;
    fields_of_us(floor_div(s->utc_ns, 1000, &ns_rem), f);
}

static void local_fields(const monostamp_stamp *s, fields *f)
{
    int64_t ns_rem;
    fields_of_us(floor_div(s->utc_ns, 1000, &ns_rem) + (int64_t)s->offset_s * 1000000, f);
}

/* A `cls` (datetime or a subclass) of the fields with tzinfo `tz`
 * (Py_None: naive).  Subclasses are built by calling them, as the stdlib
 * does, so their __new__ runs. */
static PyObject *new_datetime(PyObject *cls, const fields *f, PyObject *tz)
{
    if (cls == (PyObject *)PyDateTimeAPI->DateTimeType)
        return PyDateTimeAPI->DateTime_FromDateAndTime(f->year, f->month, f->day, f->hour,
                                                       f->minute, f->second, f->us, tz,
                                                       PyDateTimeAPI->DateTimeType);
    return PyObject_CallFunction(cls, "iiiiiiiO", f->year, f->month, f->day, f->hour,
                                 f->minute, f->second, f->us, tz);
}

/* ------------------------------------------------- the time replacements */

static PyObject *r_time(PyObject *self, PyObject *unused)
{
    active_clock a;
    monostamp_stamp s;
    if (!acquire(&a))
        return ORIGINAL(T_TIME)(self, unused);
    int rc = draw(&a, DRAW_TIME_US, "time.time()", &s);
    RELEASE(&a);
    /* Whole µs apart near today are distinct doubles. */
    return rc < 0 ? NULL : PyFloat_FromDouble((double)s.utc_ns / 1e9);
}

static PyObject *r_time_ns(PyObject *self, PyObject *unused)
{
    active_clock a;
    monostamp_stamp s;
    if (!acquire(&a))
        return ORIGINAL(T_TIME_NS)(self, unused);
    int rc = draw(&a, DRAW_TIME_NS, "time.time_ns()", &s);
    RELEASE(&a);
    return rc < 0 ? NULL : PyLong_FromLongLong(s.utc_ns);
}

/* 1 if `id` is the int CLOCK_REALTIME; 0 for anything else, which goes to
 * the original (that raises for what it does not accept). */
static int is_realtime(PyObject *id)
{
#ifdef CLOCK_REALTIME
    if (!PyLong_Check(id))
        return 0;
    int overflow;
    long v = PyLong_AsLongAndOverflow(id, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return overflow == 0 && v == CLOCK_REALTIME;
#else
    (void)id;
    return 0;
#endif
}

/* clock_gettime(id) and clock_gettime_ns(id) on CLOCK_REALTIME from the
 * active clock `a` (released here). */
static PyObject *realtime(active_clock *a, int ns, const char *call)
{
    monostamp_stamp s;
    int rc = draw(a, ns ? DRAW_TIME_NS : DRAW_TIME_US, call, &s);
    RELEASE(a);
    if (rc < 0)
        return NULL;
    return ns ? PyLong_FromLongLong(s.utc_ns) : PyFloat_FromDouble((double)s.utc_ns / 1e9);
}

/* Each replacement below tests its arguments first and only then takes
 * the active clock: is_realtime() and asks_now() run no Python code. */

static PyObject *r_clock_gettime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (PyTuple_GET_SIZE(args) == 1 && is_realtime(PyTuple_GET_ITEM(args, 0)) && acquire(&a))
        return realtime(&a, 0, "time.clock_gettime(CLOCK_REALTIME)");
    return ORIGINAL(T_CLOCK_GETTIME)(self, args);
}

static PyObject *r_clock_gettime_ns(PyObject *self, PyObject *args)
{
    active_clock a;
    if (PyTuple_GET_SIZE(args) == 1 && is_realtime(PyTuple_GET_ITEM(args, 0)) && acquire(&a))
        return realtime(&a, 1, "time.clock_gettime_ns(CLOCK_REALTIME)");
    return ORIGINAL(T_CLOCK_GETTIME_NS)(self, args);
}

/* The METH_O spelling some versions give clock_gettime(_ns). */
static PyObject *r_clock_gettime_o(PyObject *self, PyObject *id)
{
    active_clock a;
    if (is_realtime(id) && acquire(&a))
        return realtime(&a, 0, "time.clock_gettime(CLOCK_REALTIME)");
    return ORIGINAL(T_CLOCK_GETTIME)(self, id);
}

static PyObject *r_clock_gettime_ns_o(PyObject *self, PyObject *id)
{
    active_clock a;
    if (is_realtime(id) && acquire(&a))
        return realtime(&a, 1, "time.clock_gettime_ns(CLOCK_REALTIME)");
    return ORIGINAL(T_CLOCK_GETTIME_NS)(self, id);
}

/* 1 if the METH_VARARGS `args` ask for "now" (no argument, or None). */
static int asks_now(PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    return n == 0 || (n == 1 && PyTuple_GET_ITEM(args, 0) == Py_None);
}

/* original `t`(self, (whole seconds of the next stamp of `a`,)), `a`
 * released: gmtime, localtime, ctime of "now". */
static PyObject *with_stamp_seconds(int t, PyObject *self, active_clock *a, const char *call)
{
    monostamp_stamp s;
    int64_t rem;
    int rc = draw(a, DRAW_TIME_US, call, &s);
    RELEASE(a);
    if (rc < 0)
        return NULL;
    PyObject *secs = PyLong_FromLongLong(floor_div(s.utc_ns, 1000000000, &rem));
    if (secs == NULL)
        return NULL;
    PyObject *args = PyTuple_Pack(1, secs);
    Py_DECREF(secs);
    if (args == NULL)
        return NULL;
    PyObject *result = ORIGINAL(t)(self, args);
    Py_DECREF(args);
    return result;
}

static PyObject *r_gmtime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (asks_now(args) && acquire(&a))
        return with_stamp_seconds(T_GMTIME, self, &a, "time.gmtime()");
    return ORIGINAL(T_GMTIME)(self, args);
}

static PyObject *r_localtime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (asks_now(args) && acquire(&a))
        return with_stamp_seconds(T_LOCALTIME, self, &a, "time.localtime()");
    return ORIGINAL(T_LOCALTIME)(self, args);
}

static PyObject *r_ctime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (asks_now(args) && acquire(&a))
        return with_stamp_seconds(T_CTIME, self, &a, "time.ctime()");
    return ORIGINAL(T_CTIME)(self, args);
}

/* The original `t` called as (first..., localtime(stamp seconds)), `a`
 * released: asctime() and strftime(fmt) of "now". */
static PyObject *with_stamp_localtime(int t, PyObject *self, active_clock *a, PyObject *first,
                                      const char *call)
{
    PyObject *tm = with_stamp_seconds(T_LOCALTIME, self, a, call);
    if (tm == NULL)
        return NULL;
    PyObject *args = first != NULL ? PyTuple_Pack(2, first, tm) : PyTuple_Pack(1, tm);
    Py_DECREF(tm);
    if (args == NULL)
        return NULL;
    PyObject *result = ORIGINAL(t)(self, args);
    Py_DECREF(args);
    return result;
}

static PyObject *r_asctime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (PyTuple_GET_SIZE(args) == 0 && acquire(&a))
        return with_stamp_localtime(T_ASCTIME, self, &a, NULL, "time.asctime()");
    return ORIGINAL(T_ASCTIME)(self, args);
}

static PyObject *r_strftime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (PyTuple_GET_SIZE(args) == 1 && acquire(&a))
        return with_stamp_localtime(T_STRFTIME, self, &a, PyTuple_GET_ITEM(args, 0),
                                    "time.strftime()");
    return ORIGINAL(T_STRFTIME)(self, args);
}

/* --------------------------------------------- the datetime replacements */

/*
 * datetime.now(tz=None), a class method: naive local wall time of the
 * stamp at the stamp's own offset (the clock's zone), or, with tz, the
 * stdlib's tz.fromutc(<the UTC fields with tzinfo=tz>).  Arguments the
 * stdlib would refuse go to the original, which raises its own error.
 */
static PyObject *r_now(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *tz = nargs == 1 ? args[0] : NULL;
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    int ok = nargs <= 1 && nkw <= 1;
    if (ok && nkw == 1) {
        ok = tz == NULL && PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) &&
             PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "tz") == 0;
        tz = args[nargs];
    }
    if (tz == Py_None)
        tz = NULL;
    if (!ok || (tz != NULL && !PyTZInfo_Check(tz)))
        return ORIGINAL_FAST_KW(T_NOW)(cls, args, nargs, kwnames);

    active_clock a;
    monostamp_stamp s;
    fields f;
    if (!acquire(&a))
        return ORIGINAL_FAST_KW(T_NOW)(cls, args, nargs, kwnames);
    int rc = draw(&a, tz == NULL ? DRAW_NOW_US : DRAW_TIME_US, "datetime.now()", &s);
    RELEASE(&a);
    if (rc < 0)
        return NULL;
    if (tz == NULL) {
        local_fields(&s, &f);
        return new_datetime(cls, &f, Py_None);
    }
    utc_fields(&s, &f);
    PyObject *utc = new_datetime(cls, &f, tz);
    if (utc == NULL)
        return NULL;
    PyObject *result = PyObject_CallMethod(tz, "fromutc", "O", utc);
    Py_DECREF(utc);
    return result;
}

/* datetime.utcnow(): naive UTC fields, with the stdlib's 3.12+ warning. */
static PyObject *r_utcnow(PyObject *cls, PyObject *unused)
{
    active_clock a;
    monostamp_stamp s;
    fields f;
    if (!acquire(&a))
        return ORIGINAL(T_UTCNOW)(cls, unused);
#if PY_VERSION_HEX >= 0x030C0000
    if (PyErr_WarnEx(PyExc_DeprecationWarning,
                     "datetime.datetime.utcnow() is deprecated and scheduled for removal in a "
                     "future version. Use timezone-aware objects to represent datetimes in UTC: "
                     "datetime.datetime.now(datetime.UTC).",
                     1) < 0) {
        RELEASE(&a);
        return NULL;
    }
#endif
    int rc = draw(&a, DRAW_TIME_US, "datetime.utcnow()", &s);
    RELEASE(&a);
    if (rc < 0)
        return NULL;
    utc_fields(&s, &f);
    return new_datetime(cls, &f, Py_None);
}

/* date.today(), also datetime.today() (inherited): the local wall date (and
 * time, for datetimes) of the stamp at its own offset. */
static PyObject *r_today(PyObject *cls, PyObject *unused)
{
    active_clock a;
    monostamp_stamp s;
    fields f;
    if (!acquire(&a))
        return ORIGINAL(T_TODAY)(cls, unused);
    int rc = draw(&a, DRAW_NOW_US, "date.today()", &s);
    RELEASE(&a);
    if (rc < 0)
        return NULL;
    local_fields(&s, &f);
    if (PyType_Check(cls) && PyType_IsSubtype((PyTypeObject *)cls, PyDateTimeAPI->DateTimeType))
        return new_datetime(cls, &f, Py_None);
    if (cls == (PyObject *)PyDateTimeAPI->DateType)
        return PyDateTimeAPI->Date_FromDate(f.year, f.month, f.day, PyDateTimeAPI->DateType);
    return PyObject_CallFunction(cls, "iii", f.year, f.month, f.day);
}

/* -------------------------------------------------------- the table */

typedef struct {
    const char *name;   /* for messages: "time.time" */
    const char *method; /* its name in the method table */
    int flags;          /* the ml_flags the replacement is written for */
    PyCFunction replacement;
    int alt_flags;      /* another spelling some versions use, or -1 */
    PyCFunction alt_replacement;
} target_spec;

#define FN(f) ((PyCFunction)(void (*)(void))(f))

static const target_spec specs[T_COUNT] = {
    [T_TIME] = {"time.time", "time", METH_NOARGS, r_time, -1, NULL},
    [T_TIME_NS] = {"time.time_ns", "time_ns", METH_NOARGS, r_time_ns, -1, NULL},
    [T_CLOCK_GETTIME] = {"time.clock_gettime", "clock_gettime", METH_VARARGS, r_clock_gettime,
                         METH_O, r_clock_gettime_o},
    [T_CLOCK_GETTIME_NS] = {"time.clock_gettime_ns", "clock_gettime_ns", METH_VARARGS,
                            r_clock_gettime_ns, METH_O, r_clock_gettime_ns_o},
    [T_GMTIME] = {"time.gmtime", "gmtime", METH_VARARGS, r_gmtime, -1, NULL},
    [T_LOCALTIME] = {"time.localtime", "localtime", METH_VARARGS, r_localtime, -1, NULL},
    [T_CTIME] = {"time.ctime", "ctime", METH_VARARGS, r_ctime, -1, NULL},
    [T_ASCTIME] = {"time.asctime", "asctime", METH_VARARGS, r_asctime, -1, NULL},
    [T_STRFTIME] = {"time.strftime", "strftime", METH_VARARGS, r_strftime, -1, NULL},
    [T_NOW] = {"datetime.datetime.now", "now", METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
               FN(r_now), -1, NULL},
    [T_UTCNOW] = {"datetime.datetime.utcnow", "utcnow", METH_NOARGS | METH_CLASS, r_utcnow, -1,
                  NULL},
    [T_TODAY] = {"datetime.date.today", "today", METH_NOARGS | METH_CLASS, r_today, -1, NULL},
};

/* The PyMethodDef called `name` in the NULL-terminated `table`. */
static PyMethodDef *find_def(PyMethodDef *table, const char *name)
{
    for (PyMethodDef *d = table; d != NULL && d->ml_name != NULL; d++)
        if (strcmp(d->ml_name, name) == 0)
            return d;
    return NULL;
}

/* The entry called `method` of the table where target `t` lives. */
static PyMethodDef *table_entry(PyModuleDef *time_def, int t, const char *method)
{
    PyMethodDef *table = t == T_NOW || t == T_UTCNOW ? PyDateTimeAPI->DateTimeType->tp_methods
                         : t == T_TODAY             ? PyDateTimeAPI->DateType->tp_methods
                                                    : time_def->m_methods;
    return find_def(table, method);
}

/* Per target, a function of the same table that no tool patches: its C
 * code lives in the same binary as the target's genuine original. */
static PyMethodDef *siblings[T_COUNT];

/*
 * Finds the method tables' entries and checks their calling conventions,
 * once per process.  The entries are found in the tables themselves (the
 * `time` module's definition, the C datetime types' tp_methods), never
 * through module attributes, which another tool (freezegun) may have
 * replaced.  The C functions in them are saved later, by the first
 * activation (save_originals), so that a time-machine travelling when this
 * module is imported is not taken for the original.
 */
static int find_targets(void)
{
    if (defs[0] != NULL)
        return 0;
    PyObject *time_module = PyImport_ImportModule("time");
    if (time_module == NULL)
        return -1;
    PyModuleDef *time_def = PyModule_GetDef(time_module);
    Py_DECREF(time_module);
    if (time_def == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "monostamp.patch: the time module has no definition");
        return -1;
    }
    PyMethodDef *found[T_COUNT], *sibling[T_COUNT];
    for (int t = 0; t < T_COUNT; t++) {
        found[t] = table_entry(time_def, t, specs[t].method);
        sibling[t] = table_entry(time_def, t, t < T_NOW ? "monotonic" : "fromtimestamp");
        if (found[t] == NULL || sibling[t] == NULL) {
            PyErr_Format(PyExc_RuntimeError, "monostamp.patch: %s is not in its method table",
                         specs[t].name);
            return -1;
        }
        if (found[t]->ml_flags == specs[t].flags)
            chosen[t] = specs[t].replacement;
        else if (found[t]->ml_flags == specs[t].alt_flags)
            chosen[t] = specs[t].alt_replacement;
        else {
            PyErr_Format(PyExc_RuntimeError,
                         "monostamp.patch: %s has calling convention flags 0x%x, which this "
                         "build does not know", specs[t].name, found[t]->ml_flags);
            return -1;
        }
    }
    for (int t = 0; t < T_COUNT; t++) {
        defs[t] = found[t];
        siblings[t] = sibling[t];
    }
    return 0;
}

/* 1 if `f` is in the same loaded binary as `sibling` (where the dynamic
 * linker can tell; else 1). */
static int same_binary(PyCFunction f, PyCFunction sibling)
{
#ifdef MS_HAVE_DLADDR
    Dl_info a, b;
    /* POSIX lets function addresses be handled as object addresses. */
    if (dladdr((void *)(uintptr_t)f, &a) == 0 || dladdr((void *)(uintptr_t)sibling, &b) == 0)
        return 1;
    return a.dli_fbase == b.dli_fbase;
#else
    (void)f;
    (void)sibling;
    return 1;
#endif
}

/* Under switch_lock, before the first install: saves the C functions now
 * in the tables as the originals, or returns the first target that is
 * neither a genuine original nor ours (another tool has it), else -1. */
static int save_originals(void)
{
    if (saved)
        return -1;
    for (int t = 0; t < T_COUNT; t++)
        if (!same_binary(defs[t]->ml_meth, siblings[t]->ml_meth))
            return t;
    for (int t = 0; t < T_COUNT; t++)
        originals[t] = defs[t]->ml_meth;
    saved = 1;
    return -1;
}

/* The targets whose C function is neither the original nor ours: another
 * tool (time-machine) has them.  A new list of names. */
static PyObject *foreign_names(void)
{
    PyObject *names = PyList_New(0);
    for (int t = 0; names != NULL && t < T_COUNT; t++) {
        PyCFunction f = defs[t]->ml_meth;
        if (f == chosen[t] || (saved ? f == originals[t] : same_binary(f, siblings[t]->ml_meth)))
            continue;
        PyObject *name = PyUnicode_FromString(specs[t].name);
        if (name == NULL || PyList_Append(names, name) < 0)
            Py_CLEAR(names);
        Py_XDECREF(name);
    }
    return names;
}

/* ------------------------------------------------- the module functions */

PyDoc_STRVAR(activate_doc,
"_activate(clock, /)\n--\n\n"
"Makes `clock` (a monostamp.Clock, or None for the default clock) the one\n"
"the patched functions draw from, installing them first if they are not.\n"
"RuntimeError if another tool has replaced one of them.  Use\n"
"monostamp.patch(), which keeps the stack of nested patches.");

static PyObject *p_activate(PyObject *module, PyObject *clock_obj)
{
    monostamp_clock *clock;
    int may_wait;
    (void)module;
    if (api->clock_of(clock_obj, &clock, &may_wait) < 0)
        return NULL;
    active_clock *next = PyMem_RawMalloc(sizeof *next);
    if (next == NULL)
        return PyErr_NoMemory();
    Py_INCREF(clock_obj);
    *next = (active_clock){clock_obj, clock, may_wait, PyInterpreterState_Get()};

    /* Only C work under the lock: nothing that could run Python code (a
     * finaliser) and so switch threads while holding it. */
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(switch_lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
    int conflict = -1;
    if (!installed) {
        conflict = save_originals();
        /* Ours may still be there: a tool that patched on top of them put
         * them back when it stopped. */
        for (int t = 0; t < T_COUNT && conflict < 0; t++)
            if (defs[t]->ml_meth != originals[t] && defs[t]->ml_meth != chosen[t])
                conflict = t;
        if (conflict < 0) {
            for (int t = 0; t < T_COUNT; t++)
                defs[t]->ml_meth = chosen[t];
            installed = 1;
        }
    }
    active_clock *old = conflict < 0 ? swap_active(next) : next;
    PyThread_release_lock(switch_lock);

    free_active(old);
    if (conflict >= 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "monostamp.patch() cannot start: %s is patched by another tool "
                     "(time-machine?); stop it first",
                     specs[conflict].name);
        return NULL;
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(deactivate_doc,
"_deactivate()\n--\n\n"
"Puts the original functions back and forgets the active clock.");

static PyObject *p_deactivate(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(switch_lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
    if (installed) {
        for (int t = 0; t < T_COUNT; t++)
            if (defs[t]->ml_meth == chosen[t])
                defs[t]->ml_meth = originals[t];
        installed = 0;
    }
    active_clock *old = swap_active(NULL);
    PyThread_release_lock(switch_lock);
    free_active(old);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(installed_doc,
"_installed()\n--\n\n"
"True while the replacements are in the method tables.");

static PyObject *p_installed(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyBool_FromLong(installed);
}

PyDoc_STRVAR(foreign_doc,
"_foreign()\n--\n\n"
"The names of the patchable functions whose C function is neither the\n"
"original nor monostamp's: another tool (time-machine) has patched them.");

static PyObject *p_foreign(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return foreign_names();
}

PyDoc_STRVAR(targets_doc,
"_targets()\n--\n\n"
"The names of the functions a patch replaces.");

static PyObject *p_targets(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *names = PyTuple_New(T_COUNT);
    for (int t = 0; names != NULL && t < T_COUNT; t++) {
        PyObject *name = PyUnicode_FromString(specs[t].name);
        if (name == NULL)
            Py_CLEAR(names);
        else
            PyTuple_SET_ITEM(names, t, name);
    }
    return names;
}

static PyMethodDef patch_methods[] = {
    {"_activate", p_activate, METH_O, activate_doc},
    {"_deactivate", p_deactivate, METH_NOARGS, deactivate_doc},
    {"_foreign", p_foreign, METH_NOARGS, foreign_doc},
    {"_installed", p_installed, METH_NOARGS, installed_doc},
    {"_targets", p_targets, METH_NOARGS, targets_doc},
    {NULL, NULL, 0, NULL},
};

static int patch_exec(PyObject *module)
{
    (void)module;
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return -1;
    const ms_capi *capi = PyCapsule_Import(MS_CAPI_NAME, 0);
    if (capi == NULL)
        return -1;
    if (capi->version < MS_CAPI_VERSION || capi->size < sizeof(ms_capi)) {
        PyErr_Format(PyExc_ImportError,
                     "monostamp._patch needs the C API version %d of monostamp._monostamp, "
                     "which gives version %d",
                     MS_CAPI_VERSION, capi->version);
        return -1;
    }
    api = capi;
    if (switch_lock == NULL && (switch_lock = PyThread_allocate_lock()) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return find_targets();
}

static PyModuleDef_Slot patch_slots[] = {
    {Py_mod_exec, patch_exec},
#ifdef Py_mod_multiple_interpreters
    /* The method tables and the saved originals are process-wide. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_mod_gil
    /* Its state is guarded by its own locks (see the top of the file). */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(patch_doc,
"The C half of monostamp.patch(): replaces the C functions of time and\n"
"datetime while a patch is active.  Use monostamp.patch().");

static struct PyModuleDef patch_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_patch",
    .m_doc = patch_doc,
    .m_size = 0,
    .m_methods = patch_methods,
    .m_slots = patch_slots,
};

PyMODINIT_FUNC PyInit__patch(void);

PyMODINIT_FUNC PyInit__patch(void)
{
    return PyModuleDef_Init(&patch_module);
}
