/*
 * patch_datetime.c: the replacements for datetime.datetime.now(),
 * datetime.datetime.utcnow() and datetime.date.today() (which
 * datetime.today() inherits).  The wall fields of a stamp are computed
 * here by the core's calendar, never by gmtime or localtime, so a stamp's
 * own offset (its clock's zone) decides the local time.
 *
 * datetime.h gives each file that includes it a static PyDateTimeAPI of
 * its own, so this file imports it for itself
 * (ms_patch_datetime_import) and lends patch_swap.c the types' method tables.
 */
#include "patch.h"

#include <datetime.h>

#include "calendar.h"

int ms_patch_datetime_import(void)
{
    PyDateTime_IMPORT;
    return PyDateTimeAPI == NULL ? -1 : 0;
}

PyMethodDef *ms_patch_datetime_table(int t)
{
    return t == T_TODAY ? PyDateTimeAPI->DateType->tp_methods
                        : PyDateTimeAPI->DateTimeType->tp_methods;
}

/* ------------------------------------------------------ calendar fields */

typedef struct {
    int year, month, day, hour, minute, second, us;
} fields;

/*
 * The civil fields of `us` microseconds since 1970-01-01T00:00:00 (of the
 * wall clock wanted: UTC, or local time with the offset added), by the
 * core's calendar.  Any int64 ns stamp plus an offset under a day is
 * within years 1677..2262, inside datetime's range.
 */
static void fields_of_us(int64_t us, fields *f)
{
    int64_t us_in_day = monostamp__floor_mod(us, INT64_C(86400000000)), year;
    monostamp__civil_from_days(monostamp__floor_div(us, INT64_C(86400000000)), &year, &f->month,
                               &f->day);
    f->year = (int)year;
    f->hour = (int)(us_in_day / INT64_C(3600000000));
    f->minute = (int)(us_in_day / 60000000 % 60);
    f->second = (int)(us_in_day / 1000000 % 60);
    f->us = (int)(us_in_day % 1000000);
}

/* The UTC fields of the whole-µs stamp `s`, or its local wall fields at
 * its own offset. */
static void utc_fields(const monostamp_stamp *s, fields *f)
{
    fields_of_us(monostamp__floor_div(s->utc_ns, 1000), f);
}

static void local_fields(const monostamp_stamp *s, fields *f)
{
    fields_of_us(monostamp__floor_div(s->utc_ns, 1000) + (int64_t)s->offset_s * 1000000, f);
}

/* ------------------------------------------------------------- fold */

/*
 * fold=1 marks the second of two equal wall times, in the hour a zone
 * repeats when its offset falls back: the stdlib's naive now() and
 * fromtimestamp() set it, so .timestamp() finds the instant again.  The
 * stdlib's rule (Modules/_datetimemodule.c, local_to_seconds' inverse):
 * with `probe` the offset a day before the instant t, and Δ = offset(t) -
 * probe < 0, the wall time is repeated iff offset(t + Δ) == probe, that is
 * iff t is less than |Δ| after the instant T where the offset left probe.
 *
 * A naive now() may be called millions of times a second, and the zone
 * engine caches one window of instants per zone: probing a day back on
 * every call would evict the window of "now" on the day after a change.
 * So the answer is kept for a second of stamps of one zone and offset:
 * whether and where [T, T + |Δ|) is.  Within a second of the same offset
 * no second change can happen (zones change at most every few weeks),
 * and the local zone itself is re-read by the engine once a second.  It is
 * forgotten at each switch of the active clock, since a zone closed with its
 * clock may be opened again at the same address as another.  Held under the
 * GIL: only the main interpreter patches (patch_functions.c).
 */
static struct {
    monostamp_zone *zone;      /* NULL: nothing kept */
    int32_t offset_s;
    int64_t from_s, until_s;   /* the stamps (whole s) the answer is kept for */
    int64_t fold_from_s, fold_until_s; /* fold = 1 for stamps in here */
} fold_cache;

static int offset_at(monostamp_zone *zone, int64_t t_s, int32_t *out)
{
    return monostamp_zone_offset(zone, t_s * INT64_C(1000000000), out) == MONOSTAMP_OK;
}

/* The fold of the local wall time of the stamp `s` (whole seconds t) in
 * `zone`.  An offset it cannot read means no fold: the stamp's own offset
 * was read a moment ago. */
static int fold_of(monostamp_zone *zone, const monostamp_stamp *s)
{
    int64_t rem, t = floor_div(s->utc_ns, INT64_C(1000000000), &rem);
    if (fold_cache.zone != zone || fold_cache.offset_s != s->offset_s ||
        t < fold_cache.from_s || t >= fold_cache.until_s) {
        int32_t probe, mid_offset;
        int64_t from = 0, until = 0;
        if (!offset_at(zone, t - 86400, &probe))
            return 0;
        if (s->offset_s < probe) {
            /* Bisect for T in (t - 1 day, t]: the offset is probe at lo,
             * not at hi. */
            int64_t lo = t - 86400, hi = t;
            while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;
                if (!offset_at(zone, mid, &mid_offset))
                    return 0;
                if (mid_offset == probe)
                    lo = mid;
                else
                    hi = mid;
            }
            from = hi;
            until = hi + (probe - s->offset_s);
        }
        fold_cache.zone = zone;
        fold_cache.offset_s = s->offset_s;
        fold_cache.from_s = t;
        fold_cache.until_s = t + 1;
        fold_cache.fold_from_s = from;
        fold_cache.fold_until_s = until;
    }
    return t >= fold_cache.fold_from_s && t < fold_cache.fold_until_s;
}

void ms_patch_fold_forget(void)
{
    fold_cache.zone = NULL;
}

PyObject *ms_patch_tzset(PyObject *self, PyObject *unused)
{
    PyObject *result = ORIGINAL(T_TZSET)(self, unused);
    /* Told even if the original failed: TZ may have changed all the same. */
    monostamp_zone_changed();
    fold_cache.zone = NULL;
    return result;
}

/* A `cls` (datetime or a subclass) of the fields with tzinfo `tz`
 * (Py_None: naive) and `fold`.  Subclasses are built by calling them, as
 * the stdlib does, so their __new__ runs. */
static PyObject *new_datetime(PyObject *cls, const fields *f, PyObject *tz, int fold)
{
    if (cls == (PyObject *)PyDateTimeAPI->DateTimeType)
        return PyDateTimeAPI->DateTime_FromDateAndTimeAndFold(f->year, f->month, f->day,
                                                              f->hour, f->minute, f->second,
                                                              f->us, tz, fold,
                                                              PyDateTimeAPI->DateTimeType);
    PyObject *args = Py_BuildValue("iiiiiiiO", f->year, f->month, f->day, f->hour, f->minute,
                                   f->second, f->us, tz);
    PyObject *kwargs = fold && args != NULL ? Py_BuildValue("{si}", "fold", 1) : NULL;
    PyObject *result = args != NULL && (!fold || kwargs != NULL)
                           ? PyObject_Call(cls, args, kwargs)
                           : NULL;
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    return result;
}

/* --------------------------------------------- the datetime replacements */

/*
 * datetime.now(tz=None), a class method: naive local wall time of the
 * stamp at the stamp's own offset (the clock's zone), with the fold the
 * stdlib gives it, or, with tz, the
 * stdlib's tz.fromutc(<the UTC fields with tzinfo=tz>).  Arguments the
 * stdlib would refuse go to the original, which raises its own error.
 */
PyObject *ms_patch_now(PyObject *cls, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
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
    int rc = ms_patch_draw(&a, tz == NULL ? DRAW_NOW_US : DRAW_TIME_US, "datetime.now()", &s);
    int fold = rc == 0 && tz == NULL ? fold_of(monostamp_clock_zone(a.clock), &s) : 0;
    RELEASE(&a);
    if (rc < 0)
        return NULL;
    if (tz == NULL) {
        local_fields(&s, &f);
        return new_datetime(cls, &f, Py_None, fold);
    }
    utc_fields(&s, &f);
    PyObject *utc = new_datetime(cls, &f, tz, 0);
    if (utc == NULL)
        return NULL;
    PyObject *result = PyObject_CallMethod(tz, "fromutc", "O", utc);
    Py_DECREF(utc);
    return result;
}

/* datetime.utcnow(): naive UTC fields, with the stdlib's 3.12+ warning. */
PyObject *ms_patch_utcnow(PyObject *cls, PyObject *unused)
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
    int rc = ms_patch_draw(&a, DRAW_TIME_US, "datetime.utcnow()", &s);
    RELEASE(&a);
    if (rc < 0)
        return NULL;
    utc_fields(&s, &f);
    return new_datetime(cls, &f, Py_None, 0);
}

/* date.today(), also datetime.today() (inherited): the local wall date (and
 * time and fold, for datetimes) of the stamp at its own offset. */
PyObject *ms_patch_today(PyObject *cls, PyObject *unused)
{
    active_clock a;
    monostamp_stamp s;
    fields f;
    if (!acquire(&a))
        return ORIGINAL(T_TODAY)(cls, unused);
    int rc = ms_patch_draw(&a, DRAW_NOW_US, "date.today()", &s);
    int is_datetime =
        PyType_Check(cls) && PyType_IsSubtype((PyTypeObject *)cls, PyDateTimeAPI->DateTimeType);
    int fold = rc == 0 && is_datetime ? fold_of(monostamp_clock_zone(a.clock), &s) : 0;
    RELEASE(&a);
    if (rc < 0)
        return NULL;
    local_fields(&s, &f);
    if (is_datetime)
        return new_datetime(cls, &f, Py_None, fold);
    if (cls == (PyObject *)PyDateTimeAPI->DateType)
        return PyDateTimeAPI->Date_FromDate(f.year, f.month, f.day, PyDateTimeAPI->DateType);
    return PyObject_CallFunction(cls, "iii", f.year, f.month, f.day);
}
