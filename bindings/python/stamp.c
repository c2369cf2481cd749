/* stamp.c: monostamp.Stamp, an immutable (utc_ns, offset) pair that unpacks,
 * hashes and orders like the 2-tuple; not GC-tracked (no references).  No
 * __int__, __index__, __float__: int(s) would drop the offset. */
#include "stamp.h"

#include <stddef.h>
#include <string.h>

/* The names of 3.12+; before, structmember.h's. */
#ifndef Py_T_LONGLONG
#  include <structmember.h>
#  define Py_T_LONGLONG T_LONGLONG
#  define Py_T_INT T_INT
#  define Py_READONLY READONLY
#endif

#define STAMP(op) MS_STAMP(op)

void ms_stamp_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type); /* instances of heap types own a reference to them */
}

PyDoc_STRVAR(stamp_doc, "Stamp(utc_ns, offset=0)\n--\n\n"
"An instant (int ns since the epoch) and the UTC offset in force at it\n"
"(int seconds east, |offset| < 86400); immutable.  Unpacks, compares and\n"
"hashes as the 2-tuple; str() is isoformat(); stamp +/- ns (int or\n"
"timedelta) keeps the offset, stamp - stamp is int ns.  Not a number:\n"
"use stamp.utc_ns.  Clocks make them: monostamp.now(), Clock.now().");

static PyObject *stamp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"utc_ns", "offset", NULL};
    PyObject *ns_obj, *offset_obj = NULL;
    int64_t utc_ns;
    long long offset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:Stamp", keywords, &ns_obj, &offset_obj))
        return NULL;
    if (ms_int64_arg(ns_obj, "utc_ns", &utc_ns) < 0)
        return NULL;
    if (offset_obj != NULL) {
        int rc = ms_long_arg(offset_obj, "offset", &offset);
        if (rc < 0)
            return NULL;
        if (rc > 0 || monostamp_offset_check(offset) != MONOSTAMP_OK)
            return ms_rule_error("Stamp(): offset", MONOSTAMP_RULE_OFFSET, offset_obj), NULL;
    }
    /* tp_alloc: a subclass's has its GC header and __dict__. */
    PyObject *self = type->tp_alloc(type, 0);
    if (self != NULL) {
        STAMP(self)->utc_ns = utc_ns;
        STAMP(self)->offset = (int32_t)offset;
    }
    return self;
}

static PyObject *stamp_repr(PyObject *op)
{
    /* The numbers, never the ISO text: a repr must not fail. */
    long long utc_ns = (long long)STAMP(op)->utc_ns;
    int offset = (int)STAMP(op)->offset;
    if (Py_TYPE(op)->tp_dealloc == ms_stamp_dealloc)
        return PyUnicode_FromFormat("monostamp.Stamp(utc_ns=%lld, offset=%d)", utc_ns, offset);
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(op), "__qualname__");
    if (name == NULL)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("%S(utc_ns=%lld, offset=%d)", name, utc_ns, offset);
    Py_DECREF(name);
    return r;
}

/* The stamp as text, or NULL with ValueError.  `sep` (NULL: 'T') is the
 * one character between date and time. */
static PyObject *stamp_format(PyObject *op, int digits, int use_z, PyObject *sep)
{
    char buf[MONOSTAMP_ISO8601_MAX + 1];
    int64_t utc_ns = STAMP(op)->utc_ns;
    int32_t offset = STAMP(op)->offset;
    int n = monostamp_format_iso8601(buf, sizeof buf, utc_ns, offset, digits, use_z);
    if (n < 0) {  /* the core's sentence, as Lua's isoformat says it (hours: as seconds) */
        char why[160];
        int bad = 0;
        int rc = monostamp_isoformat(buf, sizeof buf, utc_ns, offset, digits < 0 ? 0 : digits,
                                     use_z, &bad, why, sizeof why);
        return rc < 0 && bad > 0 ? ms_core_text(PyExc_ValueError, "Stamp.isoformat()", why)
                                 : raise_core(NULL, n, NULL, "Stamp.isoformat()");
    }
    if (sep == NULL)
        return PyUnicode_FromStringAndSize(buf, n);
    return PyUnicode_FromFormat("%.10s%U%s", buf, sep, buf + 11);
}

static PyObject *stamp_str(PyObject *op)
{
    return stamp_format(op, 9, 0, NULL);
}

PyDoc_STRVAR(stamp_isoformat_doc,
"isoformat($self, /, digits=None, z=False, *, timespec=None, sep='T')\n--\n\n"
"The stamp as RFC 3339 text in its own offset:\n"
"'2026-12-02T15:11:20.123456789+01:00'.  digits (0..9) fractional digits,\n"
"truncated, or timespec as datetime.isoformat's and 'nanoseconds' ('auto':\n"
"9 digits, none for a whole second).  z=True writes 'Z' for offset 0.");

/* Text the core cannot read (a NUL, a lone surrogate) is as unknown. */
static int timespec_digits(PyObject *op, PyObject *spec, int *digits)
{
    Py_ssize_t len;
    if (!PyUnicode_Check(spec))
        return ms_type_error("timespec", "str", spec);
    const char *name = PyUnicode_AsUTF8AndSize(spec, &len);
    if (name == NULL)
        PyErr_Clear();
    else if (strlen(name) == (size_t)len &&
             monostamp_iso8601_timespec(name, STAMP(op)->utc_ns, digits) == MONOSTAMP_OK)
        return 0;
    PyErr_Format(PyExc_ValueError,
                 "unknown timespec %R (expected 'auto', 'hours', 'minutes', 'seconds', "
                 "'milliseconds', 'microseconds' or 'nanoseconds')", spec);
    return -1;
}

static PyObject *stamp_isoformat(PyObject *op, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    static const char *const names[] = {"digits", "z", "timespec", "sep", NULL};
    PyObject *argv[4];
    int digits = 9, use_z = 0;
    if (nargs == 0 && kwnames == NULL)
        return stamp_format(op, digits, use_z, NULL);
    if (ms_parse_args("isoformat", args, nargs, kwnames, names, 2, 0, argv) < 0)
        return NULL;
    if (argv[0] != NULL && argv[0] != Py_None) {
        if (argv[2] != NULL && argv[2] != Py_None)
            return PyErr_Format(PyExc_TypeError, "isoformat() takes digits or timespec, not both");
        long long v;
        int rc = ms_long_arg(argv[0], "Stamp.isoformat(): digits", &v);
        if (rc < 0)
            return NULL;
        if (rc > 0 || v < 0 || v > 9)  /* past long long too */
            return ms_rule_error("Stamp.isoformat(): digits", MONOSTAMP_RULE_DIGITS, argv[0]),
                   NULL;
        digits = (int)v;
    } else if (argv[2] != NULL && argv[2] != Py_None && timespec_digits(op, argv[2], &digits) < 0) {
        return NULL;
    }
    if (argv[1] != NULL && (use_z = PyObject_IsTrue(argv[1])) < 0)
        return NULL;
    PyObject *sep = argv[3];
    if (sep != NULL) {
        if (!PyUnicode_Check(sep))
            return ms_type_error("sep", "str", sep), NULL;
        if (PyUnicode_GetLength(sep) != 1)
            return PyErr_Format(PyExc_ValueError, "sep=%R must be one character", sep);
        if (PyUnicode_CompareWithASCIIString(sep, "T") == 0)
            sep = NULL;
    }
    return stamp_format(op, digits, use_z, sep);
}

PyDoc_STRVAR(stamp_fromisoformat_doc, "fromisoformat($type, text, /)\n--\n\n"
"The Stamp of text as isoformat() writes it (RFC 3339, 0..9 fractional\n"
"digits, exactly); ValueError says where and why other text fails.");

static PyObject *stamp_fromisoformat(PyObject *cls, PyObject *text_obj)
{
    Py_ssize_t len;
    int64_t utc_ns;
    int32_t offset;
    monostamp_parse_error error = {0, NULL};
    const char *text = ms_utf8_arg(text_obj, "text", 0, &len);
    if (text == NULL)
        return NULL;
    int rc = monostamp_parse_iso8601(text, (size_t)len, &utc_ns, &offset, &error);
    if (rc != MONOSTAMP_OK) {  /* the core's sentence, as Lua's parse says it */
        char why[320];
        monostamp_parse_fault(text, (size_t)len, rc, &error, why, sizeof why);
        return ms_core_text(PyExc_ValueError, "Stamp.fromisoformat()", why);
    }
    return ms_stamp_of_class((PyTypeObject *)cls, utc_ns, offset);
}

PyDoc_STRVAR(stamp_timestamp_doc, "timestamp($self, /)\n--\n\n"
"Float seconds since the epoch, as time.time() gives (utc_ns is exact).");

static PyObject *stamp_timestamp(PyObject *op, PyObject *unused)
{
    /* Floored seconds and the rest, so that each part is exact. */
    int64_t ns = STAMP(op)->utc_ns, rem = ns % 1000000000, sec = ns / 1000000000 - (rem < 0);
    rem += rem < 0 ? 1000000000 : 0;
    return PyFloat_FromDouble((double)sec + (double)rem * 1e-9);
}

static PyObject *stamp_reduce(PyObject *op, PyObject *unused)
{
    return Py_BuildValue("O(Li)", (PyObject *)Py_TYPE(op), (long long)STAMP(op)->utc_ns,
                         (int)STAMP(op)->offset);
}

static Py_ssize_t stamp_length(PyObject *op)
{
    return 2;
}

static PyObject *stamp_item(PyObject *op, Py_ssize_t i)
{
    if (i == 0)
        return PyLong_FromLongLong(STAMP(op)->utc_ns);
    if (i == 1)
        return PyLong_FromLong(STAMP(op)->offset);
    PyErr_SetString(PyExc_IndexError, "Stamp index out of range");
    return NULL;
}

/* Unpacking ends on the tuple iterator's end, not on a caught IndexError. */
static PyObject *stamp_iter(PyObject *op)
{
    PyObject *pair = Py_BuildValue("(Li)", (long long)STAMP(op)->utc_ns, (int)STAMP(op)->offset);
    PyObject *it = pair != NULL ? PyObject_GetIter(pair) : NULL;
    Py_XDECREF(pair);
    return it;
}

static PyObject *stamp_richcompare(PyObject *a, PyObject *b, int op)
{
    /* Stamps of any subclasses compare by value, as datetimes do. */
    if (Py_TYPE(a) != Py_TYPE(b) &&
        (ms_stamp_root(Py_TYPE(a)) == NULL || ms_stamp_root(Py_TYPE(b)) == NULL))
        Py_RETURN_NOTIMPLEMENTED;
    ms_stamp_object *x = STAMP(a), *y = STAMP(b);
    if (x->utc_ns != y->utc_ns)
        Py_RETURN_RICHCOMPARE(x->utc_ns, y->utc_ns, op);
    Py_RETURN_RICHCOMPARE(x->offset, y->offset, op);
}

static Py_hash_t stamp_hash(PyObject *op)
{
    /* Unsigned arithmetic: wraps by definition, never overflows. */
    Py_uhash_t h = (Py_uhash_t)(uint64_t)STAMP(op)->utc_ns;
    h = (h ^ (h >> 31)) * (Py_uhash_t)1000003;
    h ^= (Py_uhash_t)(uint32_t)STAMP(op)->offset;
    return h == (Py_uhash_t)-1 ? -2 : (Py_hash_t)h;
}

/* ---------------------------- arithmetic: the offset is kept (no zone) */

static PyObject *out_of_range(PyObject *stamp, const char *op, PyObject *delta)
{
    return PyErr_Format(PyExc_OverflowError,
                        "monostamp.Stamp(utc_ns=%lld, offset=%d) %s %R is outside int64 "
                        "nanoseconds", (long long)MS_STAMP(stamp)->utc_ns,
                        (int)MS_STAMP(stamp)->offset, op, delta);
}

/* The delta is converted first: the common case walks no type. */
static PyObject *stamp_add(PyObject *a, PyObject *b)
{
    PyObject *stamp = a, *delta = b;
    if (ms_stamp_root(Py_TYPE(a)) == NULL) {
        stamp = b;
        delta = a;
    }
    int64_t ns = MS_STAMP(stamp)->utc_ns, d;
    int rc = ms_delta_ns(delta, &d);
    if (rc <= 0) {
        if (rc < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (d > 0 ? ns > INT64_MAX - d : ns < INT64_MIN - d)
        return out_of_range(stamp, "+", delta);
    return ms_stamp_of_class(Py_TYPE(stamp), ns + d, MS_STAMP(stamp)->offset);
}

static PyObject *stamp_subtract(PyObject *a, PyObject *b)
{
    /* delta - stamp means nothing. */
    if (ms_stamp_root(Py_TYPE(a)) == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    int64_t ns = MS_STAMP(a)->utc_ns, d;
    int rc = ms_delta_ns(b, &d);
    if (rc > 0) {
        if (d > 0 ? ns < INT64_MIN + d : ns > INT64_MAX + d)
            return out_of_range(a, "-", b);
        return ms_stamp_of_class(Py_TYPE(a), ns - d, MS_STAMP(a)->offset);
    }
    if (rc < 0)
        return NULL;
    if (ms_stamp_root(Py_TYPE(b)) == NULL)
        Py_RETURN_NOTIMPLEMENTED;
    /* stamp - stamp: int ns; the offsets play no part. */
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

static PyMemberDef stamp_members[] = {
    {"utc_ns", Py_T_LONGLONG, offsetof(ms_stamp_object, utc_ns), Py_READONLY,
     "int nanoseconds since 1970-01-01T00:00:00Z."},
    {"offset", Py_T_INT, offsetof(ms_stamp_object, offset), Py_READONLY,
     "int seconds east of UTC in force at utc_ns."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef stamp_methods[] = {
    {"isoformat", FASTCALL_KW(stamp_isoformat), stamp_isoformat_doc},
    {"fromisoformat", stamp_fromisoformat, METH_O | METH_CLASS, stamp_fromisoformat_doc},
    {"datetime", ms_stamp_datetime, METH_NOARGS, ms_stamp_datetime_doc},
    {"fromdatetime", FASTCALL_KW(ms_stamp_fromdatetime) | METH_CLASS, ms_stamp_fromdatetime_doc},
    {"fromtimestamp", FASTCALL_KW(ms_stamp_fromtimestamp) | METH_CLASS,
     ms_stamp_fromtimestamp_doc},
    {"astimezone", FASTCALL_KW(ms_stamp_astimezone), ms_stamp_astimezone_doc},
    {"timestamp", stamp_timestamp, METH_NOARGS, stamp_timestamp_doc},
    {"__reduce__", stamp_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot stamp_slots[] = {
    {Py_tp_doc, (void *)stamp_doc},
    {Py_tp_new, stamp_new},
    {Py_tp_dealloc, ms_stamp_dealloc},
    {Py_tp_repr, stamp_repr},
    {Py_tp_str, stamp_str},
    {Py_tp_hash, stamp_hash},
    {Py_tp_richcompare, stamp_richcompare},
    {Py_tp_iter, stamp_iter},
    {Py_tp_members, stamp_members},
    {Py_tp_methods, stamp_methods},
    {Py_sq_length, stamp_length},
    {Py_sq_item, stamp_item},
    {Py_nb_add, stamp_add},
    {Py_nb_subtract, stamp_subtract},
    {0, NULL},
};

PyType_Spec ms_stamp_spec = {
    .name = "monostamp.Stamp",
    .basicsize = sizeof(ms_stamp_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = stamp_slots,
};
