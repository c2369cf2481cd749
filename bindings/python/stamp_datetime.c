/* stamp_datetime.c: a Stamp and datetime, float seconds and zones, through
 * the datetime C API (the Stamp's one includer of datetime.h: each has its
 * own PyDateTimeAPI); the calendar is the core's.  Timezones are made once
 * per quarter-hour offset (others, historical only, per call), zones by
 * name opened once and kept. */
#include "stamp.h"

#include <datetime.h>

#define NS_PER_S INT64_C(1000000000)

/* The zone cache's bound: hostile input must not grow it; past the bound
 * zones are opened per call. */
#define ZONE_CACHE_MAX 64

/* A new reference to d[key]; NULL, no error set, if absent. */
static PyObject *dict_get(PyObject *d, PyObject *key)
{
#if PY_VERSION_HEX >= 0x030D0000
    /* A borrowed value could be freed by another thread (free-threaded). */
    PyObject *v;
    return PyDict_GetItemRef(d, key, &v) < 0 ? NULL : v;
#else
    PyObject *v = PyDict_GetItemWithError(d, key);
    Py_XINCREF(v);
    return v;
#endif
}

/* ------------------------------------------------------- offsets, tzinfo */

/* The exact type datetime.timezone (the C API names only its utc). */
#define TIMEZONE_TYPE (Py_TYPE(PyDateTimeAPI->TimeZone_UTC))

/* A timedelta as ns; -1 with OverflowError naming `what` past int64. */
static int timedelta_ns(PyObject *td, const char *what, int64_t *out_ns)
{
    int64_t s = (int64_t)PyDateTime_DELTA_GET_DAYS(td) * 86400 +
                PyDateTime_DELTA_GET_SECONDS(td);
    if (monostamp_ns_from_seconds(s, (int64_t)PyDateTime_DELTA_GET_MICROSECONDS(td) * 1000,
                                  out_ns) != MONOSTAMP_OK) {
        PyErr_Format(PyExc_OverflowError, "%s=%R is outside int64 nanoseconds", what, td);
        return -1;
    }
    return 0;
}

/* A float (seconds or ns?) is no delta, nor a bool. */
int ms_delta_ns(PyObject *obj, int64_t *out_ns)
{
    if (PyDelta_Check(obj))
        return timedelta_ns(obj, "timedelta", out_ns) < 0 ? -1 : 1;
    long long v;
    if (!PyLong_Check(obj) || PyBool_Check(obj))
        return 0;
    int rc = ms_long_arg(obj, "delta", &v);
    if (rc > 0)
        PyErr_Format(PyExc_OverflowError, "%R ns is outside int64 nanoseconds", obj);
    if (rc != 0)
        return -1;
    *out_ns = (int64_t)v;
    return 1;
}

/* utcoffset()'s answer as a Stamp's offset, `who` being whose it is. */
static int offset_of_timedelta(PyObject *td, PyObject *who, int32_t *out)
{
    int64_t ns;
    if (!PyDelta_Check(td))
        return ms_type_error("utcoffset()", "a datetime.timedelta", td);
    if (timedelta_ns(td, "utcoffset()", &ns) < 0)
        return -1;
    if (ns % NS_PER_S != 0 || monostamp_offset_check(ns / NS_PER_S) != MONOSTAMP_OK)
        return PyErr_Format(PyExc_ValueError,
                            "the UTC offset %R of %R is not whole seconds within a day, which a "
                            "Stamp's offset must be", td, who), -1;
    *out = (int32_t)(ns / NS_PER_S);
    return 0;
}

/* The offset of a datetime.timezone (a fixed offset). */
static int timezone_offset(ms_state *st, PyObject *tz, int32_t *out)
{
    PyObject *td = PyObject_CallMethodObjArgs(tz, st->str_utcoffset, Py_None, NULL);
    if (td == NULL)
        return -1;
    int rc = offset_of_timedelta(td, tz, out);
    Py_DECREF(td);
    return rc;
}

/* A new datetime.timezone of `offset_s`. */
static PyObject *new_timezone(int32_t offset_s)
{
    if (offset_s == 0)
        return Py_NewRef(PyDateTimeAPI->TimeZone_UTC);
    PyObject *delta = PyDelta_FromDSU(0, offset_s, 0);
    if (delta == NULL)
        return NULL;
    PyObject *tz = PyTimeZone_FromOffset(delta);
    Py_DECREF(delta);
    return tz;
}

/* datetime.h's PyDateTimeAPI is a plain static of each file that includes
 * it, and every interpreter's exec imports the capsule, maybe at once under
 * GILs of their own: the first to finish writes the file's copy, the
 * others wait for it (their acquire load orders their reads after that
 * write).  The capsule holds one struct of static types for the whole
 * process; an interpreter whose capsule differs is refused rather than
 * handed another's objects. */
int ms_datetime_import_once(atomic_int *once, void **api)
{
    enum { NONE, WRITING, DONE };
    void *mine = PyCapsule_Import(PyDateTime_CAPSULE_NAME, 0);
    if (mine == NULL)
        return -1;
    int expected = NONE;
    if (atomic_compare_exchange_strong_explicit(once, &expected, WRITING, memory_order_acq_rel,
                                                memory_order_acquire)) {
        *api = mine;
        atomic_store_explicit(once, DONE, memory_order_release);
        return 0;
    }
    while (atomic_load_explicit(once, memory_order_acquire) != DONE)
        ; /* one pointer's store away */
    if (*api != mine) {
        PyErr_SetString(PyExc_ImportError,
                        "monostamp: this interpreter's datetime C API is not the process's");
        return -1;
    }
    return 0;
}

int ms_datetime_exec(ms_state *st)
{
    static atomic_int once;
    if (ms_datetime_import_once(&once, (void **)&PyDateTimeAPI) < 0)
        return -1;
    if ((st->str_utcoffset = PyUnicode_InternFromString("utcoffset")) == NULL ||
        (st->str_fromutc = PyUnicode_InternFromString("fromutc")) == NULL ||
        (st->zones = PyDict_New()) == NULL)
        return -1;
    /* Every offset in use today is whole quarter hours (+05:45 too):
     * datetime() finds those by index, no int made, no lookup. */
    for (int i = 0; i < MS_TZ_QUARTERS; i++)
        if ((st->tz_quarter[i] = new_timezone((int32_t)(i - MS_TZ_QUARTERS / 2) * 900)) == NULL)
            return -1;
    return 0;
}

/* The datetime.timezone of `offset_s`; checked, as the table must never
 * be indexed past its ends. */
static PyObject *timezone_of(ms_state *st, int32_t offset_s)
{
    if (monostamp_offset_check(offset_s) != MONOSTAMP_OK)
        return PyErr_Format(PyExc_ValueError,
                            "UTC offset %d s is a day or more; a datetime.timezone must be "
                            "strictly within +-86400 s", (int)offset_s);
    if (offset_s % 900 == 0)
        return Py_NewRef(st->tz_quarter[offset_s / 900 + MS_TZ_QUARTERS / 2]);
    return new_timezone(offset_s);
}

/* ----------------------------------------------------- stamp -> datetime */

/* -1 if the year is outside datetime's 1..9999. */
static int wall_of(int64_t utc_ns, int32_t offset_s, monostamp_wall *w)
{
    monostamp_wall_fields(utc_ns, offset_s, w);
    return w->year < 1 || w->year > 9999 ? -1 : 0;
}

PyObject *ms_datetime_of_wall(PyObject *cls, const monostamp_wall *w, PyObject *tz, int fold)
{
    int us = w->nanosecond / 1000;
    if (cls == NULL || cls == (PyObject *)PyDateTimeAPI->DateTimeType)
        return PyDateTimeAPI->DateTime_FromDateAndTimeAndFold(w->year, w->month, w->day, w->hour,
                                                              w->minute, w->second, us, tz, fold,
                                                              PyDateTimeAPI->DateTimeType);
    /* A subclass is called, as the stdlib does. */
    PyObject *args = Py_BuildValue("iiiiiiiO", w->year, w->month, w->day, w->hour, w->minute,
                                   w->second, us, tz);
    PyObject *kwargs = fold && args != NULL ? Py_BuildValue("{si}", "fold", 1) : NULL;
    PyObject *result = args != NULL && (!fold || kwargs != NULL) ? PyObject_Call(cls, args, kwargs)
                                                                 : NULL;
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    return result;
}

/* The wall time of a datetime: its C fields, whatever a subclass's
 * Python attributes say. */
static monostamp_wall wall_of_datetime(PyObject *dt)
{
    monostamp_wall w = {
        .year = PyDateTime_GET_YEAR(dt), .month = PyDateTime_GET_MONTH(dt),
        .day = PyDateTime_GET_DAY(dt), .hour = PyDateTime_DATE_GET_HOUR(dt),
        .minute = PyDateTime_DATE_GET_MINUTE(dt), .second = PyDateTime_DATE_GET_SECOND(dt),
        .nanosecond = PyDateTime_DATE_GET_MICROSECOND(dt) * 1000,
    };
    return w;
}

static PyObject *outside_datetime(int64_t utc_ns, int32_t offset_s)
{
    return PyErr_Format(PyExc_OverflowError,
                        "monostamp.Stamp(utc_ns=%lld, offset=%d) is outside datetime's years "
                        "1..9999", (long long)utc_ns, (int)offset_s);
}

PyObject *ms_datetime_from_stamp(ms_state *st, int64_t utc_ns, int32_t offset_s)
{
    monostamp_wall w;
    if (wall_of(utc_ns, offset_s, &w) < 0)
        return outside_datetime(utc_ns, offset_s);
    PyObject *tz = timezone_of(st, offset_s);
    if (tz == NULL)
        return NULL;
    PyObject *result = ms_datetime_of_wall(NULL, &w, tz, 0);
    Py_DECREF(tz);
    return result;
}

const char ms_stamp_datetime_doc[] = "datetime($self, /)\n--\n\n"
"The stamp as an aware datetime with a fixed-offset timezone, to the\n"
"microsecond (truncated toward the past); OverflowError outside 1..9999.";

PyObject *ms_stamp_datetime(PyObject *op, PyObject *unused)
{
    return ms_datetime_from_stamp(MS_STAMP_STATE(Py_TYPE(op)), MS_STAMP(op)->utc_ns,
                                  MS_STAMP(op)->offset);
}

/* ----------------------------------------------------- datetime -> stamp */

const char ms_stamp_fromdatetime_doc[] = "fromdatetime($type, dt, /)\n--\n\n"
"The Stamp of the aware datetime dt: its instant and its UTC offset\n"
"(dt.utcoffset(), which follows dt.fold).  ValueError for a naive one.";

/* 1 and dt's UTC offset; 0 if dt is naive; -1 with the error. */
static int datetime_offset(ms_state *st, PyObject *dt, int32_t *out)
{
    PyObject *tz = PyDateTime_DATE_GET_TZINFO(dt); /* borrowed */
    if (tz == Py_None)
        return 0;
    if (Py_IS_TYPE(tz, TIMEZONE_TYPE))
        return timezone_offset(st, tz, out) < 0 ? -1 : 1;
    /* Any other tzinfo answers for this very wall time and fold. */
    PyObject *td = PyObject_CallMethodNoArgs(dt, st->str_utcoffset);
    int rc = td == NULL ? -1 : td == Py_None ? 0 : offset_of_timedelta(td, dt, out) < 0 ? -1 : 1;
    Py_XDECREF(td);
    return rc;
}

/* The instant of `dt` at `offset`: 0, or -1 with ValueError past int64 ns. */
static int datetime_utc_ns(PyObject *dt, int32_t offset, int64_t *out)
{
    monostamp_wall w = wall_of_datetime(dt);
    if (monostamp_wall_instant(&w, offset, out) == MONOSTAMP_OK)
        return 0;
    PyErr_Format(PyExc_ValueError,
                 "fromdatetime(%R): outside a Stamp's range (int64 ns since the epoch, "
                 "1677-09-21T00:12:43.145224Z .. 2262-04-11T23:47:16.854775Z)", dt);
    return -1;
}

PyObject *ms_stamp_fromdatetime(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    int32_t offset;
    int64_t utc_ns;
    if (nargs != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0))
        return PyErr_Format(PyExc_TypeError,
                            "fromdatetime() takes exactly one positional argument (%zd given)",
                            nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0));
    PyObject *dt = args[0];
    if (!PyDateTime_Check(dt))
        return ms_type_error("dt", "a datetime.datetime", dt), NULL;
    int aware = datetime_offset(MS_STAMP_STATE((PyTypeObject *)cls), dt, &offset);
    if (aware == 0)
        PyErr_Format(PyExc_ValueError,
                     "fromdatetime(%R): a naive datetime has no UTC offset; attach its zone "
                     "(dt.replace(tzinfo=...), or dt.astimezone() for local time)", dt);
    if (aware <= 0 || datetime_utc_ns(dt, offset, &utc_ns) < 0)
        return NULL;
    return ms_stamp_of_class((PyTypeObject *)cls, utc_ns, offset);
}

/* ------------------------------------------------- Clock()'s arguments */

static PyObject *type_name(PyObject *obj)
{
    return PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
}

const char *ms_zone_name_arg(PyObject *obj, PyObject **keep)
{
    Py_ssize_t len;
    *keep = NULL;
    if (PyUnicode_Check(obj))
        return ms_utf8_arg(obj, "Clock(): zone", 1, &len);
    if (obj == PyDateTimeAPI->TimeZone_UTC)
        return "UTC";
    int is_tz = PyTZInfo_Check(obj);
    PyObject *key = is_tz ? PyObject_GetAttrString(obj, "key") : NULL;
    if (key != NULL && PyUnicode_Check(key)) {
        *keep = key;
        return ms_utf8_arg(key, "Clock(): zone", 1, &len);
    }
    Py_XDECREF(key);
    PyErr_Clear();
    PyObject *name = type_name(obj);
    if (name != NULL)
        ms_raise(PyExc_TypeError,
                 "Clock(): zone must be a zone name (str), a zoneinfo.ZoneInfo or "
                 "datetime.timezone.utc, not %U%s",
                 name, is_tz ? " -- a fixed offset or other tzinfo has no name the "
                               "clock could follow: give its IANA name ('Europe/Berlin') "
                               "or a POSIX TZ string" : "");
    Py_XDECREF(name);
    return NULL;
}

int ms_instant_ns_arg(ms_state *st, PyObject *obj, const char *what, int64_t *out)
{
    int32_t offset;
    if (PyLong_Check(obj) && !PyBool_Check(obj))
        return ms_int64_arg(obj, what, out);
    if (PyObject_TypeCheck(obj, st->stamp_type)) {
        *out = MS_STAMP(obj)->utc_ns;
        return 0;
    }
    if (!PyDateTime_Check(obj)) {
        PyObject *name = type_name(obj);
        if (name != NULL)
            ms_raise(PyExc_TypeError,
                     "%s must be int nanoseconds since the epoch, an aware datetime or a "
                     "Stamp, not %U%s", what, name,
                     PyFloat_Check(obj) ? " -- for seconds, give "
                                          "datetime.fromtimestamp(s, timezone.utc)" : "");
        Py_XDECREF(name);
        return -1;
    }
    int aware = datetime_offset(st, obj, &offset);
    if (aware == 0)
        ms_raise(PyExc_ValueError,
                 "%s=%R is a naive datetime, which names no instant -- attach "
                 "its zone (dt.replace(tzinfo=timezone.utc))", what, obj);
    return aware <= 0 ? -1 : datetime_utc_ns(obj, offset, out);
}

/* ------------------------------------------------------------- zones */

static const char ZONE_CAPSULE[] = "monostamp._zone";

static void zone_capsule_free(PyObject *capsule)
{
    monostamp_zone_close(PyCapsule_GetPointer(capsule, ZONE_CAPSULE));
}

/* The offset at `utc_ns` in the zone the core knows as `name`. */
static int named_zone_offset(ms_state *st, PyObject *name, int64_t utc_ns, int32_t *out)
{
    Py_ssize_t len;
    const char *text = ms_utf8_arg(name, "zone", 1, &len);
    if (text == NULL)
        return -1;
    /* Held while used: another thread may replace the entry. */
    PyObject *capsule = dict_get(st->zones, name);
    if (capsule == NULL) {
        monostamp_zone *zone;
        if (PyErr_Occurred())
            return -1;
        int rc = monostamp_zone_open(text, &zone);
        if (rc == MONOSTAMP_ENOZONE)
            return ms_zone_error("Stamp.astimezone()", text), -1;
        if (rc != MONOSTAMP_OK)
            return raise_core(st, rc, NULL, "zone=%R", name), -1;
        if ((capsule = PyCapsule_New(zone, ZONE_CAPSULE, zone_capsule_free)) == NULL) {
            monostamp_zone_close(zone);
            return -1;
        }
        /* A full cache is no error. */
        if (PyDict_Size(st->zones) < ZONE_CACHE_MAX &&
            PyDict_SetItem(st->zones, name, capsule) < 0) {
            Py_DECREF(capsule);
            return -1;
        }
    }
    int rc = monostamp_zone_offset(PyCapsule_GetPointer(capsule, ZONE_CAPSULE), utc_ns, out);
    Py_DECREF(capsule);
    if (rc != MONOSTAMP_OK) {
        raise_core(st, rc, NULL, "the offset of zone=%R at utc_ns=%lld", name, (long long)utc_ns);
        return -1;
    }
    return 0;
}

int ms_zone_offset_at(ms_state *st, PyObject *zone, int64_t utc_ns, int32_t *out)
{
    if (zone == Py_None) {
        monostamp_zone *local;
        int rc = monostamp_zone_open(NULL, &local); /* the local zone: never fails */
        if (rc == MONOSTAMP_OK)
            rc = monostamp_zone_offset(local, utc_ns, out);
        if (rc != MONOSTAMP_OK)
            raise_core(st, rc, NULL, "the local zone's offset at utc_ns=%lld",
                       (long long)utc_ns);
        return rc == MONOSTAMP_OK ? 0 : -1;
    }
    if (PyUnicode_Check(zone))
        return named_zone_offset(st, zone, utc_ns, out);
    if (Py_IS_TYPE(zone, TIMEZONE_TYPE))
        return timezone_offset(st, zone, out);
    if (!PyTZInfo_Check(zone))
        return ms_type_error("zone", "None, a zone name (str) or a datetime.tzinfo", zone);
    /* Any other tzinfo as datetime.astimezone asks it: tz.fromutc() of
     * the UTC wall time; the offset is the result's wall time less it
     * (what fromutc() means, and cheaper than its utcoffset()). */
    monostamp_wall w;
    if (wall_of(utc_ns, 0, &w) < 0)
        return outside_datetime(utc_ns, 0), -1;
    PyObject *dt = ms_datetime_of_wall(NULL, &w, zone, 0), *result = NULL;
    int rc = -1;
    if (dt != NULL && (result = PyObject_CallMethodOneArg(zone, st->str_fromutc, dt)) != NULL &&
        PyDateTime_Check(result)) {
        monostamp_wall local = wall_of_datetime(result), utc = wall_of_datetime(dt);
        if (monostamp_wall_offset(&local, &utc, out) != MONOSTAMP_OK)
            PyErr_Format(PyExc_ValueError,
                         "zone=%R: fromutc() gave %R for %R, not whole seconds within a day "
                         "away, which a Stamp's offset must be", zone, result, dt);
        else
            rc = 0;
    } else if (result != NULL) {
        ms_type_error("zone.fromutc()", "a datetime.datetime", result);
    }
    Py_XDECREF(result);
    Py_XDECREF(dt);
    return rc;
}

const char ms_stamp_astimezone_doc[] = "astimezone($self, /, zone=None)\n--\n\n"
"The same instant (utc_ns exactly) with the offset `zone` has at it: None\n"
"(local), a name the core opens as Clock(zone=...) does, or a tzinfo\n"
"(asked as datetime.astimezone asks it).";

PyObject *ms_stamp_astimezone(PyObject *op, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    static const char *const names[] = {"zone", NULL};
    PyObject *zone = Py_None;
    int32_t offset;
    if (nargs == 1 && kwnames == NULL)
        zone = args[0]; /* the common call: nothing to sort */
    else if (ms_parse_args("astimezone", args, nargs, kwnames, names, 1, 0, &zone) < 0)
        return NULL;
    if (zone == NULL)
        zone = Py_None;
    if (ms_zone_offset_at(MS_STAMP_STATE(Py_TYPE(op)), zone, MS_STAMP(op)->utc_ns, &offset) < 0)
        return NULL;
    return ms_stamp_of_class(Py_TYPE(op), MS_STAMP(op)->utc_ns, offset);
}

/* ------------------------------------------------------- float seconds */

const char ms_stamp_fromtimestamp_doc[] = "fromtimestamp($type, t, /, zone=None)\n--\n\n"
"The Stamp of t seconds since the epoch (a float rounded to the nearest\n"
"ns) with the offset `zone` has then, as for astimezone().";

PyObject *ms_stamp_fromtimestamp(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    static const char *const names[] = {"t", "zone", NULL};
    ms_state *st = MS_STAMP_STATE((PyTypeObject *)cls);
    PyObject *argv[2];
    int64_t utc_ns;
    int32_t offset;
    if (ms_parse_args("fromtimestamp", args, nargs, kwnames, names, 2, 1, argv) < 0)
        return NULL;
    if (nargs == 0) { /* t is positional-only, as the signature says */
        PyErr_SetString(PyExc_TypeError, "fromtimestamp() takes t by position only");
        return NULL;
    }
    PyObject *t = argv[0], *zone = argv[1] != NULL ? argv[1] : Py_None;
    long long s;
    int bad;
    if (PyFloat_Check(t))
        bad = monostamp_ns_from_double(PyFloat_AS_DOUBLE(t), 0, &utc_ns) != MONOSTAMP_OK;
    else if (!PyLong_Check(t) || PyBool_Check(t)) /* fromtimestamp(True) is a bug */
        return ms_type_error("t", "int or float", t), NULL;
    else if ((bad = ms_long_arg(t, "t", &s)) < 0)
        return NULL;
    else
        bad = bad || monostamp_ns_from_seconds(s, 0, &utc_ns) != MONOSTAMP_OK;
    if (bad)
        return ms_rule_error("Stamp.fromtimestamp(): t", MONOSTAMP_RULE_SECONDS, t), NULL;
    if (ms_zone_offset_at(st, zone, utc_ns, &offset) < 0)
        return NULL;
    return ms_stamp_of_class((PyTypeObject *)cls, utc_ns, offset);
}
