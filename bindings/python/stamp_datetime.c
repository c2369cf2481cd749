/*
 * stamp_datetime.c: a Stamp and datetime, float seconds and zones.
 *
 * The datetime C API (PyDateTime_CAPI) is not in the limited API, so the
 * objects are made and read through the Python-level protocol, by the
 * cheapest doors it has:
 *
 *   - a datetime is made from its pickle state, datetime(bytes10, tz):
 *     datetime.__new__ takes that path before any argument parsing (it
 *     must, for pickles of every protocol, so it is stable across
 *     versions, and the pure-Python datetime has it too);
 *   - an exact datetime is read by one call of its __reduce__, which gives
 *     the same ten bytes and the tzinfo, where attributes would take eight
 *     lookups (a subclass, whose __reduce__ may be its own, is read by
 *     attributes);
 *   - datetime.timezone objects are cached per offset (offsets repeat),
 *     and their offsets per object, so neither timedelta nor timezone is
 *     built or asked on the common path.
 *
 * The calendar is the core's (csrc/calendar.h).  Zones given by name go
 * through the core's zone engine, opened once per name and kept.
 */
#include "stamp.h"

#include <math.h>
#include <string.h>

#include "calendar.h"

#define NS_PER_S INT64_C(1000000000)

/* Each cache holds at most this many entries: offsets and zone names come
 * from the caller, and hostile input must not grow them without bound.
 * Past the bound, the objects are made per call. */
#define TZ_CACHE_MAX 512
#define ZONE_CACHE_MAX 64

/* A new reference to d[key]; NULL, no error set, if absent. */
static PyObject *dict_get(PyObject *d, PyObject *key)
{
#if !defined(Py_LIMITED_API) && PY_VERSION_HEX >= 0x030D0000
    /* Free-threaded builds: a borrowed value could be freed by another
     * thread replacing it before we take our reference. */
    PyObject *v;
    return PyDict_GetItemRef(d, key, &v) < 0 ? NULL : v;
#else
    PyObject *v = PyDict_GetItemWithError(d, key);
    Py_XINCREF(v);
    return v;
#endif
}

/* d[key] = value unless d is full; the cache is an optimisation, so a full
 * one is no error. */
static int dict_put(PyObject *d, PyObject *key, PyObject *value, Py_ssize_t max)
{
    return PyDict_Size(d) >= max ? 0 : PyDict_SetItem(d, key, value);
}

/* s seconds and sub ns (0 <= sub < 1e9) as int64 ns; -1 if out of range.
 * Exact to the very ends: INT64_MIN is -9223372037 s + 145224192 ns. */
static int ns_of(int64_t s, int64_t sub, int64_t *out)
{
    if (s < 0 && sub > 0) {
        s += 1;
        sub -= NS_PER_S;
    }
    if (s > INT64_MAX / NS_PER_S || s < INT64_MIN / NS_PER_S)
        return -1;
    int64_t base = s * NS_PER_S;
    if (sub > 0 ? base > INT64_MAX - sub : base < INT64_MIN - sub)
        return -1;
    *out = base + sub;
    return 0;
}

/* ------------------------------------------------------- offsets, tzinfo */

int ms_timedelta_us(ms_state *st, PyObject *td, const char *what, int64_t *out_us)
{
    if (!PyObject_TypeCheck(td, (PyTypeObject *)st->timedelta_type))
        return ms_type_error(what, "a datetime.timedelta", td);
    /* Three member reads by interned name: cheaper than one __reduce__,
     * whose call builds two tuples. */
    PyObject *const names[3] = {st->str_days, st->str_seconds, st->str_microseconds};
    long v[3];
    for (int i = 0; i < 3; i++) {
        PyObject *o = PyObject_GetAttr(td, names[i]);
        if (o == NULL)
            return -1;
        v[i] = PyLong_AsLong(o);
        Py_DECREF(o);
        if (v[i] == -1 && PyErr_Occurred())
            return -1;
    }
    /* timedelta keeps |days| <= 999999999: the seconds fit in int64. */
    int64_t s = (int64_t)v[0] * 86400 + v[1], ns;
    if (v[1] < 0 || v[1] >= 86400 || v[2] < 0 || v[2] >= 1000000 ||
        ns_of(s, (int64_t)v[2] * 1000, &ns) < 0) {
        PyErr_Format(PyExc_OverflowError, "%s=%R is outside int64 nanoseconds", what, td);
        return -1;
    }
    *out_us = ns / 1000;
    return 0;
}

/* A UTC offset given as a timedelta, as int seconds; ValueError if it is
 * not whole seconds (a Stamp's offset is), `who` being whose it is. */
static int offset_of_timedelta(ms_state *st, PyObject *td, PyObject *who, int32_t *out)
{
    int64_t us;
    if (ms_timedelta_us(st, td, "utcoffset()", &us) < 0)
        return -1;
    /* tzinfo keeps offsets strictly within a day. */
    if (us % 1000000 != 0 || us <= -INT64_C(86400000000) || us >= INT64_C(86400000000)) {
        PyErr_Format(PyExc_ValueError,
                     "the UTC offset %R of %R is not whole seconds within a day, which a "
                     "Stamp's offset must be", td, who);
        return -1;
    }
    *out = (int32_t)(us / 1000000);
    return 0;
}

/* The offset of a datetime.timezone (a fixed offset): cached per object. */
static int timezone_offset(ms_state *st, PyObject *tz, int32_t *out)
{
    PyObject *cached = dict_get(st->offset_by_tz, tz);
    if (cached != NULL) {
        *out = (int32_t)PyLong_AsLong(cached);
        Py_DECREF(cached);
        return 0;
    }
    if (PyErr_Occurred())
        return -1;
    PyObject *td = PyObject_CallMethodObjArgs(tz, st->str_utcoffset, Py_None, NULL);
    if (td == NULL)
        return -1;
    int rc = offset_of_timedelta(st, td, tz, out);
    Py_DECREF(td);
    if (rc < 0)
        return -1;
    PyObject *key = PyLong_FromLong(*out);
    if (key == NULL)
        return -1;
    rc = dict_put(st->offset_by_tz, tz, key, TZ_CACHE_MAX);
    Py_DECREF(key);
    return rc;
}

/* A new datetime.timezone of `offset_s`, entered in both caches (unless
 * full) under the int `key`. */
static PyObject *new_timezone(ms_state *st, PyObject *key, int32_t offset_s)
{
    PyObject *tz = NULL, *delta = PyObject_CallFunction(st->timedelta_type, "ii", 0,
                                                        (int)offset_s);
    if (delta != NULL) {
        tz = PyObject_CallFunctionObjArgs(st->timezone_type, delta, NULL);
        Py_DECREF(delta);
    }
    if (tz != NULL && (dict_put(st->tz_by_offset, key, tz, TZ_CACHE_MAX) < 0 ||
                       dict_put(st->offset_by_tz, tz, key, TZ_CACHE_MAX) < 0))
        Py_CLEAR(tz);
    return tz;
}

int ms_datetime_init(ms_state *st)
{
    /* Every offset in use today is whole quarter hours (+05:45, +12:45,
     * -03:30 included): those are made here, once, so that datetime()
     * finds its timezone by index, with no int to make and no lookup, and
     * the table is only read after exec (free-threaded builds too).  It
     * costs about 0.2 ms of import time (as the same loop in Python
     * measures) and 15 kB. */
    for (int i = 0; i < MS_TZ_QUARTERS; i++) {
        int32_t offset_s = (int32_t)(i - MS_TZ_QUARTERS / 2) * 900;
        PyObject *key = PyLong_FromLong(offset_s);
        if (key == NULL)
            return -1;
        st->tz_quarter[i] = new_timezone(st, key, offset_s);
        Py_DECREF(key);
        if (st->tz_quarter[i] == NULL)
            return -1;
    }
    return 0;
}

/* The datetime.timezone of `offset_s` (new reference), cached. */
static PyObject *timezone_of(ms_state *st, int32_t offset_s)
{
    PyObject *tz;
    if (offset_s % 900 == 0) {
        /* |offset_s| < 86400: the index is within the table. */
        tz = st->tz_quarter[offset_s / 900 + MS_TZ_QUARTERS / 2];
        Py_INCREF(tz);
        return tz;
    }
    PyObject *key = PyLong_FromLong(offset_s);
    if (key == NULL)
        return NULL;
    tz = dict_get(st->tz_by_offset, key);
    if (tz == NULL && !PyErr_Occurred())
        tz = new_timezone(st, key, offset_s);
    Py_DECREF(key);
    return tz;
}

/* ----------------------------------------------------- stamp -> datetime */

/* The wall-clock fields of `utc_ns` at `offset_s`; -1 if the year is
 * outside datetime's 1..9999. */
static int wall_fields(int64_t utc_ns, int32_t offset_s, unsigned char state[10])
{
    /* |utc_ns / 1e9| < 2**34: adding the offset cannot overflow. */
    int64_t local_s = monostamp__floor_div(utc_ns, NS_PER_S) + offset_s;
    int64_t us = monostamp__floor_mod(utc_ns, NS_PER_S) / 1000;
    int64_t s_in_day = monostamp__floor_mod(local_s, 86400), year;
    int month, day;
    monostamp__civil_from_days(monostamp__floor_div(local_s, 86400), &year, &month, &day);
    if (year < 1 || year > 9999)
        return -1;
    /* datetime's pickle state: year (2 bytes), month, day, hour, minute,
     * second, microsecond (3 bytes), big-endian; fold 0. */
    state[0] = (unsigned char)(year >> 8);
    state[1] = (unsigned char)(year & 0xFF);
    state[2] = (unsigned char)month;
    state[3] = (unsigned char)day;
    state[4] = (unsigned char)(s_in_day / 3600);
    state[5] = (unsigned char)(s_in_day / 60 % 60);
    state[6] = (unsigned char)(s_in_day % 60);
    state[7] = (unsigned char)(us >> 16);
    state[8] = (unsigned char)((us >> 8) & 0xFF);
    state[9] = (unsigned char)(us & 0xFF);
    return 0;
}

/* datetime.datetime(state, tz): see the opening comment. */
static PyObject *datetime_of_state(ms_state *st, const unsigned char state[10], PyObject *tz)
{
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)state, 10);
    if (bytes == NULL)
        return NULL;
    PyObject *args = PyTuple_Pack(2, bytes, tz);
    Py_DECREF(bytes);
    if (args == NULL)
        return NULL;
    PyObject *result = PyObject_Call(st->datetime_type, args, NULL);
    Py_DECREF(args);
    return result;
}

static PyObject *outside_datetime(int64_t utc_ns, int32_t offset_s)
{
    /* What datetime arithmetic itself raises past its range. */
    return PyErr_Format(PyExc_OverflowError,
                        "monostamp.Stamp(utc_ns=%lld, offset=%d) is outside datetime's years "
                        "1..9999", (long long)utc_ns, (int)offset_s);
}

PyObject *ms_datetime_from_stamp(ms_state *st, int64_t utc_ns, int32_t offset_s)
{
    unsigned char state[10];
    if (wall_fields(utc_ns, offset_s, state) < 0)
        return outside_datetime(utc_ns, offset_s);
    PyObject *tz = timezone_of(st, offset_s);
    if (tz == NULL)
        return NULL;
    PyObject *result = datetime_of_state(st, state, tz);
    Py_DECREF(tz);
    return result;
}

const char ms_stamp_datetime_doc[] =
"datetime($self, /)\n--\n\n"
"The stamp as an aware datetime.datetime with a fixed-offset\n"
"datetime.timezone.  datetime holds microseconds: the last three digits\n"
"of utc_ns are dropped (truncated toward the past).  OverflowError\n"
"outside datetime's years 1..9999.";

/* METH_METHOD: the defining class leads to the module state, where the
 * datetime classes wait (a subclass's own type has no state). */
PyObject *ms_stamp_datetime(PyObject *op, PyTypeObject *defining_class, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    (void)args;
    if (nargs != 0 || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError, "datetime() takes no arguments");
        return NULL;
    }
    return ms_datetime_from_stamp(ms_state_of_type(defining_class), MS_STAMP(op)->utc_ns,
                                  MS_STAMP(op)->offset);
}

/* ----------------------------------------------------- datetime -> stamp */

/* The fields of an exact datetime from its __reduce__: (cls, (state10[,
 * tz])).  Returns 1 with the fields and a new reference to the tzinfo
 * (Py_None if naive), 0 if the answer is not of that shape. */
static int fields_by_reduce(ms_state *st, PyObject *dt, unsigned char f[10], PyObject **tz)
{
    PyObject *r = PyObject_CallMethodObjArgs(dt, st->str_reduce, NULL);
    if (r == NULL)
        return -1;
    int ok = 0;
    PyObject *args = PyTuple_Check(r) && PyTuple_Size(r) == 2 ? PyTuple_GetItem(r, 1) : NULL;
    Py_ssize_t n = args != NULL && PyTuple_Check(args) ? PyTuple_Size(args) : 0;
    PyObject *state = n == 1 || n == 2 ? PyTuple_GetItem(args, 0) : NULL;
    if (state != NULL && PyBytes_Check(state) && PyBytes_Size(state) == 10) {
        memcpy(f, PyBytes_AsString(state), 10);
        f[2] &= 0x7F; /* the fold bit, which protocol 2's state never sets */
        *tz = n == 2 ? PyTuple_GetItem(args, 1) : Py_None;
        Py_INCREF(*tz);
        ok = 1;
    }
    Py_DECREF(r);
    return ok;
}

/* The fields of any datetime by its attributes (datetime subclasses). */
static int fields_by_attributes(PyObject *dt, unsigned char f[10], PyObject **tz)
{
    static const char *const names[7] = {"year",   "month",  "day",        "hour",
                                         "minute", "second", "microsecond"};
    long v[7];
    for (int i = 0; i < 7; i++) {
        PyObject *o = PyObject_GetAttrString(dt, names[i]);
        if (o == NULL)
            return -1;
        v[i] = PyLong_Check(o) ? PyLong_AsLong(o) : -1;
        Py_DECREF(o);
        if (PyErr_Occurred())
            return -1;
    }
    /* A subclass may lie in its properties: hold them to datetime's ranges. */
    if (v[0] < 1 || v[0] > 9999 || v[1] < 1 || v[1] > 12 || v[2] < 1 ||
        v[2] > monostamp__days_in_month(v[0], (int)v[1]) || v[3] < 0 || v[3] > 23 ||
        v[4] < 0 || v[4] > 59 || v[5] < 0 || v[5] > 59 || v[6] < 0 || v[6] > 999999) {
        PyErr_Format(PyExc_ValueError, "%R has fields outside datetime's ranges", dt);
        return -1;
    }
    f[0] = (unsigned char)(v[0] >> 8);
    f[1] = (unsigned char)(v[0] & 0xFF);
    for (int i = 1; i < 6; i++)
        f[i + 1] = (unsigned char)v[i];
    f[7] = (unsigned char)(v[6] >> 16);
    f[8] = (unsigned char)((v[6] >> 8) & 0xFF);
    f[9] = (unsigned char)(v[6] & 0xFF);
    *tz = PyObject_GetAttrString(dt, "tzinfo");
    return *tz != NULL ? 1 : -1;
}

/* The fields and tzinfo (new reference) of any datetime: 0 or -1. */
static int datetime_fields(ms_state *st, PyObject *dt, unsigned char f[10], PyObject **tz)
{
    int rc = 0;
    if (Py_TYPE(dt) == (PyTypeObject *)st->datetime_type)
        rc = fields_by_reduce(st, dt, f, tz);
    if (rc == 0)
        rc = fields_by_attributes(dt, f, tz);
    return rc < 0 ? -1 : 0;
}

/* The wall time of fields as seconds since 1970-01-01T00:00 (µs apart). */
static int64_t wall_seconds(const unsigned char f[10])
{
    return monostamp__days_from_civil(f[0] << 8 | f[1], f[2], f[3]) * 86400 + f[4] * 3600 +
           f[5] * 60 + f[6];
}

static int64_t wall_us(const unsigned char f[10])
{
    return (int64_t)f[7] << 16 | (int64_t)f[8] << 8 | f[9];
}

const char ms_stamp_fromdatetime_doc[] =
"fromdatetime($type, dt, /)\n--\n\n"
"The Stamp of the aware datetime dt: its instant, to the microsecond, and\n"
"its UTC offset (dt.utcoffset(), which follows dt.fold).  A naive\n"
"datetime is refused (ValueError): attach its zone first, e.g.\n"
"dt.replace(tzinfo=ZoneInfo(...)) or dt.astimezone() for local time.\n"
"ValueError for an offset that is not whole seconds or an instant\n"
"outside int64 ns (years 1677..2262).";

PyObject *ms_stamp_fromdatetime(PyObject *cls, PyTypeObject *defining_class,
                                PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    ms_state *st = ms_state_of_type(defining_class);
    PyObject *dt, *tz = NULL;
    unsigned char f[10];
    int32_t offset;
    /* One positional argument, as the signature says (METH_METHOD calls
     * are always FASTCALL | KEYWORDS). */
    if (nargs != 1 || (kwnames != NULL && PyTuple_Size(kwnames) != 0)) {
        PyErr_Format(PyExc_TypeError,
                     "fromdatetime() takes exactly one positional argument (%zd given)",
                     nargs + (kwnames != NULL ? PyTuple_Size(kwnames) : 0));
        return NULL;
    }
    dt = args[0];
    if (!PyObject_TypeCheck(dt, (PyTypeObject *)st->datetime_type))
        return ms_type_error("dt", "a datetime.datetime", dt), NULL;
    int rc = datetime_fields(st, dt, f, &tz);
    if (rc < 0)
        return NULL;
    int naive = tz == Py_None;
    if (Py_TYPE(tz) == (PyTypeObject *)st->timezone_type) {
        rc = timezone_offset(st, tz, &offset);
    } else if (!naive) {
        /* Any other tzinfo answers for this very wall time and fold. */
        PyObject *td = PyObject_CallMethodObjArgs(dt, st->str_utcoffset, NULL);
        naive = td == Py_None; /* a tzinfo may say "no offset" */
        rc = td == NULL ? -1 : naive ? 0 : offset_of_timedelta(st, td, dt, &offset);
        Py_XDECREF(td);
    }
    Py_DECREF(tz);
    if (rc < 0)
        return NULL;
    if (naive) {
        PyErr_Format(PyExc_ValueError,
                     "fromdatetime(%R): a naive datetime has no UTC offset; attach its zone "
                     "(dt.replace(tzinfo=...), or dt.astimezone() for local time)", dt);
        return NULL;
    }
    int64_t utc_ns;
    if (ns_of(wall_seconds(f) - offset, wall_us(f) * 1000, &utc_ns) < 0) {
        PyErr_Format(PyExc_ValueError,
                     "fromdatetime(%R): outside a Stamp's range (int64 ns since the epoch, "
                     "1677-09-21T00:12:43.145224Z .. 2262-04-11T23:47:16.854775Z)", dt);
        return NULL;
    }
    return ms_stamp_of_class((PyTypeObject *)cls, utc_ns, offset);
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
    /* The capsule is held while its zone is used: a racing thread may
     * replace the dict's entry meanwhile (free-threaded builds). */
    PyObject *capsule = dict_get(st->zones, name);
    if (capsule == NULL) {
        monostamp_zone *zone;
        if (PyErr_Occurred())
            return -1;
        int rc = monostamp_zone_open(text, &zone);
        if (rc != MONOSTAMP_OK) {
            raise_core(st, rc, NULL, "zone=%R", name);
            return -1;
        }
        if ((capsule = PyCapsule_New(zone, ZONE_CAPSULE, zone_capsule_free)) == NULL) {
            monostamp_zone_close(zone);
            return -1;
        }
        if (dict_put(st->zones, name, capsule, ZONE_CACHE_MAX) < 0) {
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
    if (Py_TYPE(zone) == (PyTypeObject *)st->timezone_type)
        return timezone_offset(st, zone, out);
    if (!PyObject_TypeCheck(zone, (PyTypeObject *)st->tzinfo_type))
        return ms_type_error("zone", "None, a zone name (str) or a datetime.tzinfo", zone);
    /* Any other tzinfo: as datetime.astimezone asks it, tz.fromutc() of
     * the UTC wall time labelled with tz.  The offset is then the local
     * wall time less the UTC one, read from the result's fields (cheaper
     * than its utcoffset(), and what fromutc() means by definition). */
    unsigned char utc[10], local[10];
    if (wall_fields(utc_ns, 0, utc) < 0)
        return outside_datetime(utc_ns, 0), -1;
    PyObject *dt = datetime_of_state(st, utc, zone), *result = NULL, *tz = NULL;
    int rc = -1;
    if (dt != NULL && (result = PyObject_CallMethodObjArgs(zone, st->str_fromutc, dt, NULL)) &&
        PyObject_TypeCheck(result, (PyTypeObject *)st->datetime_type) &&
        datetime_fields(st, result, local, &tz) == 0) {
        int64_t offset_s = wall_seconds(local) - wall_seconds(utc);
        if (wall_us(local) != wall_us(utc) || offset_s <= -86400 || offset_s >= 86400)
            PyErr_Format(PyExc_ValueError,
                         "zone=%R: fromutc() gave %R for %R, not whole seconds within a day "
                         "away, which a Stamp's offset must be", zone, result, dt);
        else
            *out = (int32_t)offset_s, rc = 0;
    } else if (result != NULL && !PyErr_Occurred()) {
        ms_type_error("zone.fromutc()", "a datetime.datetime", result);
    }
    Py_XDECREF(tz);
    Py_XDECREF(result);
    Py_XDECREF(dt);
    return rc;
}

const char ms_stamp_astimezone_doc[] =
"astimezone($self, /, zone=None)\n--\n\n"
"The same instant with the offset `zone` has at it: None for the local\n"
"zone, 'UTC', an IANA name ('Europe/Berlin') or a POSIX TZ string (the\n"
"core's zones, as Clock(zone=...) takes), or a datetime.tzinfo (asked\n"
"as datetime.astimezone asks it: tz.fromutc(), then utcoffset(); the\n"
"stamp must then be within datetime's years).  utc_ns is kept exactly;\n"
"the result is of the stamp's own class.";

PyObject *ms_stamp_astimezone(PyObject *op, PyTypeObject *defining_class, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames)
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
    if (ms_zone_offset_at(ms_state_of_type(defining_class), zone, MS_STAMP(op)->utc_ns,
                          &offset) < 0)
        return NULL;
    return ms_stamp_like(op, MS_STAMP(op)->utc_ns, offset);
}

/* ------------------------------------------------------- float seconds */

const char ms_stamp_fromtimestamp_doc[] =
"fromtimestamp($type, t, /, zone=None)\n--\n\n"
"The Stamp of t seconds since the epoch (int: exact; float: rounded to\n"
"the nearest ns, half to even) with the offset `zone` has then (as for\n"
"astimezone(): None is the local zone, as datetime.fromtimestamp's).\n"
"ValueError for NaN, infinities and instants outside int64 ns.";

PyObject *ms_stamp_fromtimestamp(PyObject *cls, PyTypeObject *defining_class,
                                 PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"t", "zone", NULL};
    ms_state *st = ms_state_of_type(defining_class);
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
    int bad;
    if (PyLong_Check(t)) {
        int overflow;
        long long s = PyLong_AsLongLongAndOverflow(t, &overflow);
        if (s == -1 && PyErr_Occurred())
            return NULL;
        bad = overflow || ns_of(s, 0, &utc_ns) < 0;
    } else if (PyFloat_Check(t)) {
        double x = PyFloat_AsDouble(t);
        /* floor() and the fraction are exact in doubles; only the ns are
         * rounded.  The range check comes before any cast. */
        double s = floor(x);
        bad = !isfinite(x) || s >= 9223372036854775808.0 || s < -9223372036854775808.0;
        if (!bad) {
            double sub = nearbyint((x - s) * 1e9);
            if (sub >= 1e9) { /* a fraction that rounds up to a whole second */
                s += 1;
                sub = 0;
            }
            bad = s >= 9223372036854775808.0 || ns_of((int64_t)s, (int64_t)sub, &utc_ns) < 0;
        }
    } else {
        return ms_type_error("t", "int or float", t), NULL;
    }
    if (bad) {
        PyErr_Format(PyExc_ValueError,
                     "fromtimestamp(%R): out of range: must be finite and within int64 "
                     "nanoseconds since the epoch", t);
        return NULL;
    }
    if (ms_zone_offset_at(st, zone, utc_ns, &offset) < 0)
        return NULL;
    return ms_stamp_of_class((PyTypeObject *)cls, utc_ns, offset);
}
