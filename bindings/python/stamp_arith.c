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

PyObject *ms_stamp_add(PyObject *a, PyObject *b)
{
    /* An int on the right, the common case, is no stamp: no walk. */
    PyTypeObject *root_a = ms_stamp_root(Py_TYPE(a));
    PyTypeObject *root_b =
        root_a != NULL && PyLong_CheckExact(b) ? NULL : ms_stamp_root(Py_TYPE(b));
    /* Two instants do not add up. */
    if ((root_a != NULL) == (root_b != NULL))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *stamp = root_a != NULL ? a : b, *delta = root_a != NULL ? b : a;
    int64_t ns = MS_STAMP(stamp)->utc_ns, d;
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
    PyTypeObject *root_a = ms_stamp_root(Py_TYPE(a));
    /* delta - stamp means nothing. */
    if (root_a == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    int64_t ns = MS_STAMP(a)->utc_ns, d;
    if (!PyLong_CheckExact(b) && ms_stamp_root(Py_TYPE(b)) != NULL) {
        /* An int, like time_ns() differences; the offsets play no part,
         * as aware datetimes subtract by their UTC instants. */
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
    int rc = delta_ns(b, &d);
    if (rc <= 0) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (d > 0 ? ns < INT64_MIN + d : ns > INT64_MAX + d)
        return out_of_range(a, "-", b);
    return ms_stamp_like(a, ns - d, MS_STAMP(a)->offset);
}
