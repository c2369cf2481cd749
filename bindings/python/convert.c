/* convert.c: Python values to the core's, and back.  Whether a name suits
 * the core, and the names a message lists, the core decides. */
#include "module.h"

#include <string.h>

/* ValueError: the core's sentence for text whose first NUL is byte `at`. */
static int nul_error(const char *what, size_t at)
{
    PyObject *n = PyLong_FromSize_t(at);
    return n == NULL ? -1 : (ms_rule_error(what, MONOSTAMP_RULE_NUL, n), Py_DECREF(n), -1);
}

const char *ms_utf8_arg(PyObject *obj, const char *what, int no_nul, Py_ssize_t *len)
{
    if (!PyUnicode_Check(obj))
        return ms_type_error(what, "str", obj), NULL;
    /* The bytes are cached in the str and live as long as it does. */
    const char *text = PyUnicode_AsUTF8AndSize(obj, len);
    if (text == NULL)
        return NULL;
    if (no_nul && strlen(text) != (size_t)*len)
        return nul_error(what, strlen(text) + 1), NULL;
    return text;
}

/* bool is an int subclass, but True as a count of ns or seconds is a bug
 * (sleep(True) slept a second): refused as take(True) is. */
int ms_long_arg(PyObject *obj, const char *what, long long *out)
{
    if (!PyLong_Check(obj) || PyBool_Check(obj))
        return ms_type_error(what, "int", obj);
    int overflow;
    *out = PyLong_AsLongLongAndOverflow(obj, &overflow);
    return *out == -1 && PyErr_Occurred() ? -1 : overflow != 0;
}

int ms_int64_arg(PyObject *obj, const char *what, int64_t *out)
{
    long long v = 0;
    int rc = ms_long_arg(obj, what, &v);
    if (rc != 0)
        return rc > 0 ? ms_rule_error(what, MONOSTAMP_RULE_INT64, obj) : -1;
    *out = (int64_t)v;
    return 0;
}

int ms_seconds_arg(PyObject *obj, const char *what, int64_t *out)
{
    long long s = 0;
    int rc;
    if (PyBool_Check(obj) || (!PyLong_Check(obj) && !PyFloat_Check(obj)))
        return ms_type_error(what, "int or float", obj);
    if (PyFloat_Check(obj))
        rc = monostamp_ns_from_double(PyFloat_AS_DOUBLE(obj), 1, out);
    else if ((rc = ms_long_arg(obj, what, &s)) < 0)
        return -1;
    else  /* past long long: the same rule */
        rc = rc > 0 ? MONOSTAMP_ERANGE : monostamp_ns_from_seconds(s, 0, out);
    return rc != MONOSTAMP_OK ? ms_rule_error(what, MONOSTAMP_RULE_SECONDS, obj) : 0;
}

int ms_options_fault(const char *prefix, const char *field, PyObject *value)
{
    int is_text = PyUnicode_Check(value);
    PyObject *shown = is_text ? Py_NewRef(value) : PyObject_Repr(value);
    const char *text = shown != NULL ? PyUnicode_AsUTF8(shown) : NULL;
    char why[512];
    if (text != NULL && monostamp_options_fault(field, text, is_text, why, sizeof why) != 0)
        ms_core_text(PyExc_ValueError, prefix, why);  /* cut short or not */
    Py_XDECREF(shown);
    return -1;
}

int ms_option_arg(PyObject *obj, const char *what, const char *field, const char *expected,
                  int *out)
{
    Py_ssize_t len;
    if (!PyUnicode_Check(obj))
        return ms_type_error(what, expected, obj);
    const char *name = ms_utf8_arg(obj, what, 1, &len);
    if (name == NULL)
        return -1;
    /* The core's rule for the field says "must be one of 'a', 'b', ...". */
    if (monostamp_option_from_name(field, name, out) != MONOSTAMP_OK)
        return PyErr_Format(PyExc_ValueError, "%s=%R %s", what, obj,
                            monostamp_options_rule(field)), -1;
    return 0;
}

int ms_policy_arg(ms_state *st, PyObject *obj, const char *what, int *out)
{
    /* A member is its own answer: no text to compare.  Not imported here:
     * before the members are cached, a member is read as the str it is. */
    PyObject *members = atomic_load_explicit(&st->policies, memory_order_acquire);
    for (Py_ssize_t p = 0; members != NULL && p < PyTuple_GET_SIZE(members); p++) {
        if (obj == PyTuple_GET_ITEM(members, p)) {
            *out = (int)p;
            return 0;
        }
    }
    return ms_option_arg(obj, what, "policy", "a Policy or str", out);
}

int ms_bool_arg(PyObject *obj, const char *what, int *out)
{
    /* Not truthiness: trust_group="no" would mean yes. */
    if (!PyBool_Check(obj))
        return ms_type_error(what, "bool", obj);
    *out = obj == Py_True;
    return 0;
}

int ms_path_arg(PyObject *obj, const char *what, PyObject **out_bytes)
{
    if (!PyUnicode_Check(obj) && !PyBytes_Check(obj) &&
        !PyObject_HasAttrString((PyObject *)Py_TYPE(obj), "__fspath__"))
        return ms_type_error(what, "str, bytes or os.PathLike", obj);
    /* As PyUnicode_FSConverter, but a NUL in the core's words. */
    PyObject *path = PyOS_FSPath(obj);
    PyObject *raw = path == NULL ? NULL : PyUnicode_Check(path) ? PyUnicode_EncodeFSDefault(path)
                                                               : Py_NewRef(path);
    Py_XDECREF(path);
    if (raw == NULL)
        return -1;
    size_t at = strlen(PyBytes_AS_STRING(raw)) + 1;
    if (at <= (size_t)PyBytes_GET_SIZE(raw)) {
        Py_DECREF(raw);
        return nul_error(what, at);
    }
    *out_bytes = raw;
    return 0;
}

PyObject *ms_policy_object(ms_state *st, int policy)
{
    PyObject *members = ms_policy_members(st);
    if (members == NULL)
        return NULL;
    if (policy < 0 || policy >= PyTuple_GET_SIZE(members))
        return PyErr_Format(PyExc_SystemError, "monostamp: policy %d out of range", policy);
    return Py_NewRef(PyTuple_GET_ITEM(members, policy));
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
        if (out[i] == NULL)
            return PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %zd)",
                                fname, names[i], i + 1), -1;
    }
    return 0;
}
