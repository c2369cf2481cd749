/*
 * convert.c: Python values to the core's, and back.
 *
 * The converters check types (TypeError) and the ranges Python knows
 * about (ValueError naming the argument and its value); whether a value
 * suits the core (a policy name, a source name) the core decides, through
 * its name lookups, so that no table of names is kept here.
 */
#include "module.h"

#include <math.h>
#include <string.h>

const char *ms_utf8_arg(PyObject *obj, const char *what, int no_nul, Py_ssize_t *len)
{
    if (!PyUnicode_Check(obj)) {
        ms_type_error(what, "str", obj);
        return NULL;
    }
    /* The bytes are cached in the str and live as long as it does. */
    const char *text = PyUnicode_AsUTF8AndSize(obj, len);
    if (text == NULL)
        return NULL;
    if (no_nul && strlen(text) != (size_t)*len) {
        PyErr_Format(PyExc_ValueError, "%s %R contains a NUL character", what, obj);
        return NULL;
    }
    return text;
}

int ms_int64_arg(PyObject *obj, const char *what, int64_t *out)
{
    if (!PyLong_Check(obj))
        return ms_type_error(what, "int", obj);
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow) {
        PyErr_Format(PyExc_ValueError, "%s=%R is out of range for int64 nanoseconds", what, obj);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int ms_seconds_arg(PyObject *obj, const char *what, int64_t *out)
{
    if (PyLong_Check(obj)) {
        int64_t s;
        if (ms_int64_arg(obj, what, &s) < 0)
            return -1;
        if (s > INT64_MAX / 1000000000 || s < INT64_MIN / 1000000000) {
            PyErr_Format(PyExc_ValueError, "%s=%R is out of range", what, obj);
            return -1;
        }
        *out = s * 1000000000;
        return 0;
    }
    if (!PyFloat_Check(obj))
        return ms_type_error(what, "int or float", obj);
    double ns = ceil(PyFloat_AsDouble(obj) * 1e9);
    /* 2**63 is exact in a double; the cast below is defined only for
     * values strictly inside the int64 range, and NaN is outside all. */
    if (isnan(ns) || ns >= 9223372036854775808.0 || ns < -9223372036854775808.0) {
        PyErr_Format(PyExc_ValueError, "%s=%R is out of range", what, obj);
        return -1;
    }
    *out = (int64_t)ns;
    return 0;
}

/* The UTF-8 of a name argument, or NULL.  A name with a NUL in it cannot
 * match any of the core's names; *known says whether the core may be
 * asked at all. */
static const char *name_arg(PyObject *obj, const char *what, int *known)
{
    Py_ssize_t len;
    const char *name = ms_utf8_arg(obj, what, 0, &len);
    *known = name != NULL && strlen(name) == (size_t)len;
    return name;
}

int ms_policy_arg(ms_state *st, PyObject *obj, int *out)
{
    /* A member is its own answer: no text to compare. */
    for (int p = 0; p < MS_POLICY_COUNT; p++) {
        if (obj == st->policies[p]) {
            *out = p;
            return 0;
        }
    }
    int known;
    monostamp_policy policy;
    const char *name = name_arg(obj, "policy", &known);
    if (name == NULL)
        return -1;
    int rc = known ? monostamp_policy_from_name(name, &policy) : MONOSTAMP_EINVAL;
    if (rc != MONOSTAMP_OK) {
        raise_core(st, rc, NULL, "unknown policy %R (expected one of 'acceptPlatformTime', "
                   "'monotonicAllowDuplicates', 'monotonicForceMicrosecondIncrement', "
                   "'monotonicForceNanosecondIncrement')", obj);
        return -1;
    }
    *out = (int)policy;
    return 0;
}

int ms_source_arg(PyObject *obj, int *out)
{
    int known;
    monostamp_source source;
    const char *name = name_arg(obj, "source", &known);
    if (name == NULL)
        return -1;
    int rc = known ? monostamp_source_from_name(name, &source) : MONOSTAMP_EINVAL;
    if (rc != MONOSTAMP_OK) {
        raise_core(NULL, rc, NULL,
                   "unknown source %R (expected 'realtime', 'realtime_coarse' or 'manual')", obj);
        return -1;
    }
    *out = (int)source;
    return 0;
}

int ms_on_lead_arg(PyObject *obj, int *out)
{
    int known;
    monostamp_on_lead on_lead;
    const char *name = name_arg(obj, "on_lead", &known);
    if (name == NULL)
        return -1;
    int rc = known ? monostamp_on_lead_from_name(name, &on_lead) : MONOSTAMP_EINVAL;
    if (rc != MONOSTAMP_OK) {
        raise_core(NULL, rc, NULL, "unknown on_lead %R (expected 'wait' or 'error')", obj);
        return -1;
    }
    *out = (int)on_lead;
    return 0;
}

int ms_path_arg(PyObject *obj, PyObject **out_bytes)
{
    /* Refuses embedded NULs itself ("embedded null byte"). */
    return PyUnicode_FSConverter(obj, out_bytes) ? 0 : -1;
}

PyObject *ms_policy_object(ms_state *st, int policy)
{
    if (policy < 0 || policy >= MS_POLICY_COUNT) {
        /* The core only ever holds one of the four. */
        PyErr_Format(PyExc_SystemError, "monostamp: policy %d out of range", policy);
        return NULL;
    }
    Py_INCREF(st->policies[policy]);
    return st->policies[policy];
}

/* ----------------------------------------------------------- arguments */

int ms_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames, const char *const *names, Py_ssize_t max_positional,
                  Py_ssize_t required, PyObject **out)
{
    Py_ssize_t count = 0;
    while (names[count] != NULL)
        out[count++] = NULL;
    if (nargs > max_positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional argument%s (%zd given)",
                     fname, max_positional, max_positional == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GetItem(kwnames, k);
        Py_ssize_t i = 0;
        if (key == NULL)
            return -1;
        while (i < count && PyUnicode_CompareWithASCIIString(key, names[i]) != 0)
            i++;
        if (i == count) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname,
                         key);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < required; i++) {
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %zd)",
                         fname, names[i], i + 1);
            return -1;
        }
    }
    return 0;
}
