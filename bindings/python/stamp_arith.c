/*
 * stamp_arith.c: stamp + delta, delta + stamp, stamp - delta (a Stamp of
 * the stamp's class, its offset kept) and stamp - stamp (an int of ns).
 *
 * A delta is an int of ns or a datetime.timedelta (whole µs).  A float is
 * refused: seconds or ns?  And a bool is refused: stamp + True is a bug,
 * not one nanosecond.  The offset is kept because a Stamp holds no zone,
 * only the offset it was made with; s.astimezone(zone) re-derives it, for
 * the zone the caller means.  Results past int64 ns are OverflowError, as
 * datetime's are past year 9999.
 */
#include "stamp.h"

/* Nanoseconds as a Python int, or timedelta (whole microseconds): the
 * right operand of stamp + x and stamp - x.  Returns 1 and *out_ns, 0 if
 * `obj` is neither (the operation is then NotImplemented), -1 with
 * OverflowError past int64 ns. */
static int delta_ns(PyObject *obj, int64_t *out_ns)
{
    if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "%R ns is outside int64 nanoseconds", obj);
            return -1;
        }
        *out_ns = (int64_t)v;
        return 1;
    }
    return ms_timedelta_ns(obj, out_ns);
}

static PyObject *out_of_range(PyObject *stamp, const char *op, PyObject *delta)
{
    return PyErr_Format(PyExc_OverflowError,
                        "monostamp.Stamp(utc_ns=%lld, offset=%d) %s %R is outside int64 "
                        "nanoseconds", (long long)MS_STAMP(stamp)->utc_ns,
                        (int)MS_STAMP(stamp)->offset, op, delta);
}

/* nb_add and nb_subtract are Stamp's own slots: CPython calls them only
 * when one operand (stamp + x, x + stamp) or the left one (stamp - x) is
 * a Stamp.  The delta is converted first: the common case (stamp and an
 * int or a timedelta) walks no type. */

PyObject *ms_stamp_add(PyObject *a, PyObject *b)
{
    PyObject *stamp = a, *delta = b;
    if (ms_stamp_root(Py_TYPE(a)) == NULL) {
        stamp = b;
        delta = a;
    }
    int64_t ns = MS_STAMP(stamp)->utc_ns, d;
    /* Two instants do not add up: a Stamp is no delta. */
    int rc = delta_ns(delta, &d);
    if (rc <= 0) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (d > 0 ? ns > INT64_MAX - d : ns < INT64_MIN - d)
        return out_of_range(stamp, "+", delta);
    return ms_stamp_like(stamp, ns + d, MS_STAMP(stamp)->offset);
}

PyObject *ms_stamp_subtract(PyObject *a, PyObject *b)
{
    /* delta - stamp means nothing. */
    if (ms_stamp_root(Py_TYPE(a)) == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    int64_t ns = MS_STAMP(a)->utc_ns, d;
    int rc = delta_ns(b, &d);
    if (rc > 0) {
        if (d > 0 ? ns < INT64_MIN + d : ns > INT64_MAX + d)
            return out_of_range(a, "-", b);
        return ms_stamp_like(a, ns - d, MS_STAMP(a)->offset);
    }
    if (rc < 0)
        return NULL;
    if (ms_stamp_root(Py_TYPE(b)) == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    /* stamp - stamp: an int, like time_ns() differences; the offsets play
     * no part, as aware datetimes subtract by their UTC instants. */
    int64_t other = MS_STAMP(b)->utc_ns;
    if (other > 0 ? ns >= INT64_MIN + other : ns <= INT64_MAX + other)
        return PyLong_FromLongLong(ns - other);
    /* Two stamps far apart: exact in Python ints, past int64. */
    PyObject *x = PyLong_FromLongLong(ns), *y = PyLong_FromLongLong(other), *r = NULL;
    if (x != NULL && y != NULL)
        r = PyNumber_Subtract(x, y);
    Py_XDECREF(x);
    Py_XDECREF(y);
    return r;
}
