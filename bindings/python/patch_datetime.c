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

/* A `cls` (datetime or a subclass) of the fields with tzinfo `tz`
 * (Py_None: naive).  Subclasses are built by calling them, as the stdlib
 * does, so their __new__ runs. */
static PyObject *new_datetime(PyObject *cls, const fields *f, PyObject *tz)
{
    if (cls == (PyObject *)PyDateTimeAPI->DateTimeType)
        return PyDateTimeAPI->DateTime_FromDateAndTimeAndFold(f->year, f->month, f->day,
                                                              f->hour, f->minute, f->second,
                                                              f->us, tz, 0,
                                                              PyDateTimeAPI->DateTimeType);
    return PyObject_CallFunction(cls, "iiiiiiiO", f->year, f->month, f->day, f->hour,
                                 f->minute, f->second, f->us, tz);
}

/* --------------------------------------------- the datetime replacements */

/*
 * datetime.now(tz=None), a class method: naive local wall time of the
 * stamp at the stamp's own offset (the clock's zone), or, with tz, the
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
    return new_datetime(cls, &f, Py_None);
}

/* date.today(), also datetime.today() (inherited): the local wall date (and
 * time, for datetimes) of the stamp at its own offset. */
PyObject *ms_patch_today(PyObject *cls, PyObject *unused)
{
    active_clock a;
    monostamp_stamp s;
    fields f;
    if (!acquire(&a))
        return ORIGINAL(T_TODAY)(cls, unused);
    int rc = ms_patch_draw(&a, DRAW_NOW_US, "date.today()", &s);
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
