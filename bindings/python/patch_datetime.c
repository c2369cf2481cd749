/* patch_datetime.c: the replacements for datetime.now(), utcnow() and
 * date.today() (datetime.today() inherits it): wall fields from the core's
 * calendar at the stamp's own offset, never from gmtime or localtime. */
#include "patch.h"

#include <datetime.h>

int ms_patch_datetime_import(void)
{
    static atomic_int once;
    return ms_datetime_import_once(&once, (void **)&PyDateTimeAPI);
}

PyMethodDef *ms_patch_datetime_table(int t)
{
    return t == T_TODAY ? PyDateTimeAPI->DateType->tp_methods
                        : PyDateTimeAPI->DateTimeType->tp_methods;
}

/* The next stamp of `a` (released here) as wall fields at its offset
 * (none under DRAW_TIME_US) and, if `fold` is not NULL, PEP 495's fold of
 * that naive local time: 0, or -1 with the error. */
static int draw_wall(active_clock *a, int kind, const char *call, int *fold, monostamp_wall *f)
{
    monostamp_stamp s;
    int rc = ms_patch_draw(a, kind, call, &s);
    if (rc == 0 && fold != NULL) /* cannot fail on a live clock's zone */
        monostamp_zone_fold(monostamp_clock_zone(a->clock), s.utc_ns, fold);
    RELEASE(a);
    if (rc == 0)
        monostamp_wall_fields(s.utc_ns, s.offset_s, f);
    return rc;
}

/* datetime.now(tz=None): naive local wall time with its fold, or
 * tz.fromutc(the UTC fields with tzinfo=tz), as the stdlib.  Arguments
 * it would refuse go to the original, which raises. */
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
    /* acquire() first: in another interpreter, its load orders this
     * file's PyDateTimeAPI, written by the main one. */
    active_clock a;
    monostamp_wall f;
    int fold = 0;
    if (!ok || !acquire(&a))
        return ORIGINAL_FAST_KW(T_NOW)(cls, args, nargs, kwnames);
    if (tz != NULL && !PyTZInfo_Check(tz)) {
        RELEASE(&a);
        return ORIGINAL_FAST_KW(T_NOW)(cls, args, nargs, kwnames);
    }
    if (draw_wall(&a, tz == NULL ? DRAW_NOW_US : DRAW_TIME_US, "datetime.now()",
                  tz == NULL ? &fold : NULL, &f) < 0)
        return NULL;
    if (tz == NULL)
        return ms_datetime_of_wall(cls, &f, Py_None, fold);
    PyObject *utc = ms_datetime_of_wall(cls, &f, tz, 0);
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
    monostamp_wall f;
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
    if (draw_wall(&a, DRAW_TIME_US, "datetime.utcnow()", NULL, &f) < 0)
        return NULL;
    return ms_datetime_of_wall(cls, &f, Py_None, 0);
}

/* date.today(), and datetime.today() with time and fold. */
PyObject *ms_patch_today(PyObject *cls, PyObject *unused)
{
    active_clock a;
    monostamp_wall f;
    if (!acquire(&a))
        return ORIGINAL(T_TODAY)(cls, unused);
    int fold = 0, is_datetime =
        PyType_Check(cls) && PyType_IsSubtype((PyTypeObject *)cls, PyDateTimeAPI->DateTimeType);
    if (draw_wall(&a, DRAW_NOW_US, "date.today()", is_datetime ? &fold : NULL, &f) < 0)
        return NULL;
    if (is_datetime)
        return ms_datetime_of_wall(cls, &f, Py_None, fold);
    if (cls == (PyObject *)PyDateTimeAPI->DateType)
        return PyDateTimeAPI->Date_FromDate(f.year, f.month, f.day, PyDateTimeAPI->DateType);
    return PyObject_CallFunction(cls, "iii", f.year, f.month, f.day);
}
