/* patch_time.c: the replacements for the time module's functions: a stamp
 * when asked for "now" (gmtime and its kin: the original's answer for the
 * stamp's time), else the original.  Floats at whole-µs grain, int ns. */
#include "patch.h"

#include <time.h>

/* time(), time_ns(), clock_gettime(_ns)(CLOCK_REALTIME) from `a`, released
 * here.  Whole µs apart near today are distinct doubles. */
static PyObject *realtime(active_clock *a, int ns, const char *call)
{
    monostamp_stamp s;
    int rc = ms_patch_draw(a, ns ? DRAW_TIME_NS : DRAW_TIME_US, call, &s);
    RELEASE(a);
    if (rc < 0)
        return NULL;
    return ns ? PyLong_FromLongLong(s.utc_ns) : PyFloat_FromDouble((double)s.utc_ns / 1e9);
}

PyObject *ms_patch_time(PyObject *self, PyObject *unused)
{
    active_clock a;
    return acquire(&a) ? realtime(&a, 0, "time.time()") : ORIGINAL(T_TIME)(self, unused);
}

PyObject *ms_patch_time_ns(PyObject *self, PyObject *unused)
{
    active_clock a;
    return acquire(&a) ? realtime(&a, 1, "time.time_ns()") : ORIGINAL(T_TIME_NS)(self, unused);
}

/* 1 if `id` is the int CLOCK_REALTIME; anything else goes to the original. */
static int is_realtime(PyObject *id)
{
#ifdef CLOCK_REALTIME
    if (!PyLong_Check(id))
        return 0;
    int overflow;
    long v = PyLong_AsLongAndOverflow(id, &overflow);
    PyErr_Clear(); /* -1 and an error is no CLOCK_REALTIME */
    return overflow == 0 && v == CLOCK_REALTIME;
#else
    return 0;
#endif
}

/* `arg` is what the original takes (the tuple, or id for METH_O); `id`
 * is NULL unless one argument.  The arguments are tested first, running
 * no Python code, then the active clock taken. */
static PyObject *clock_gettime_of(PyObject *self, PyObject *id, PyObject *arg, int ns)
{
    active_clock a;
    if (id != NULL && is_realtime(id) && acquire(&a))
        return realtime(&a, ns, ns ? "time.clock_gettime_ns(CLOCK_REALTIME)"
                                   : "time.clock_gettime(CLOCK_REALTIME)");
    return ORIGINAL(ns ? T_CLOCK_GETTIME_NS : T_CLOCK_GETTIME)(self, arg);
}

static PyObject *single(PyObject *args)
{
    return PyTuple_GET_SIZE(args) == 1 ? PyTuple_GET_ITEM(args, 0) : NULL;
}

/* The METH_VARARGS and METH_O spellings. */
#define GETTIME(name, id, ns) \
    PyObject *name(PyObject *self, PyObject *arg) { return clock_gettime_of(self, id, arg, ns); }
GETTIME(ms_patch_clock_gettime, single(arg), 0)
GETTIME(ms_patch_clock_gettime_ns, single(arg), 1)
GETTIME(ms_patch_clock_gettime_o, arg, 0)
GETTIME(ms_patch_clock_gettime_ns_o, arg, 1)

/* 1 if the METH_VARARGS `args` ask for "now" (no argument, or None). */
static int asks_now(PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    return n == 0 || (n == 1 && PyTuple_GET_ITEM(args, 0) == Py_None);
}

/* original `t`(self, (the next stamp's seconds,)), `a` released. */
static PyObject *with_stamp_seconds(int t, PyObject *self, active_clock *a, const char *call)
{
    monostamp_stamp s;
    int rc = ms_patch_draw(a, DRAW_TIME_US, call, &s);
    RELEASE(a);
    if (rc < 0)
        return NULL;
    /* Floored: an instant before the epoch is in the second that holds it. */
    int64_t sec = s.utc_ns / 1000000000 - (s.utc_ns % 1000000000 < 0);
    PyObject *args = Py_BuildValue("(L)", (long long)sec);
    PyObject *result = args != NULL ? ORIGINAL(t)(self, args) : NULL;
    Py_XDECREF(args);
    return result;
}

static PyObject *of_seconds(int t, PyObject *self, PyObject *args, const char *call)
{
    active_clock a;
    if (asks_now(args) && acquire(&a))
        return with_stamp_seconds(t, self, &a, call);
    return ORIGINAL(t)(self, args);
}

#define OF_SECONDS(name, t, call) \
    PyObject *name(PyObject *self, PyObject *args) { return of_seconds(t, self, args, call); }
OF_SECONDS(ms_patch_gmtime, T_GMTIME, "time.gmtime()")
OF_SECONDS(ms_patch_localtime, T_LOCALTIME, "time.localtime()")
OF_SECONDS(ms_patch_ctime, T_CTIME, "time.ctime()")

/* original `t`(first..., localtime(stamp seconds)), `a` released. */
static PyObject *with_stamp_localtime(int t, PyObject *self, active_clock *a, PyObject *first,
                                      const char *call)
{
    PyObject *tm = with_stamp_seconds(T_LOCALTIME, self, a, call);
    if (tm == NULL)
        return NULL;
    PyObject *args = first != NULL ? PyTuple_Pack(2, first, tm) : PyTuple_Pack(1, tm);
    Py_DECREF(tm);
    PyObject *result = args != NULL ? ORIGINAL(t)(self, args) : NULL;
    Py_XDECREF(args);
    return result;
}

PyObject *ms_patch_asctime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (PyTuple_GET_SIZE(args) == 0 && acquire(&a))
        return with_stamp_localtime(T_ASCTIME, self, &a, NULL, "time.asctime()");
    return ORIGINAL(T_ASCTIME)(self, args);
}

PyObject *ms_patch_strftime(PyObject *self, PyObject *args)
{
    active_clock a;
    if (PyTuple_GET_SIZE(args) == 1 && acquire(&a))
        return with_stamp_localtime(T_STRFTIME, self, &a, PyTuple_GET_ITEM(args, 0),
                                    "time.strftime()");
    return ORIGINAL(T_STRFTIME)(self, args);
}

PyObject *ms_patch_tzset(PyObject *self, PyObject *unused)
{
    PyObject *result = ORIGINAL(T_TZSET)(self, unused);
    /* Even if the original failed: TZ may have changed all the same. */
    monostamp_zone_changed();
    return result;
}
