/* ids.c: UUIDv7 ids as uuid.UUID objects and back, blocks of stamps as
 * ranges; the core makes both.  A UUID is built without UUID.__init__ (slow
 * Python): allocated, its slots `int` and `is_safe` set through
 * object.__setattr__, as CPython 3.14's UUID._from_int does. */
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RELAXED memory_order_relaxed

typedef struct ms_uuid_refs {
    PyTypeObject *uuid_type; /* uuid.UUID */
    PyObject *safe_unknown;  /* uuid.SafeUUID.unknown */
    PyObject *str_int, *str_is_safe; /* the slots' names, interned */
} ms_uuid_refs;

static void free_refs(ms_uuid_refs *refs)
{
    if (refs == NULL)
        return;
    Py_XDECREF(refs->uuid_type);
    Py_XDECREF(refs->safe_unknown);
    Py_XDECREF(refs->str_int);
    Py_XDECREF(refs->str_is_safe);
    free(refs);
}

static ms_uuid_refs *import_refs(void)
{
    ms_uuid_refs *refs = calloc(1, sizeof *refs);
    if (refs == NULL)
        return (ms_uuid_refs *)PyErr_NoMemory();
    PyObject *uuid = PyImport_ImportModule("uuid");
    PyObject *safe = uuid != NULL ? PyObject_GetAttrString(uuid, "SafeUUID") : NULL;
    if (safe != NULL) {
        refs->uuid_type = (PyTypeObject *)PyObject_GetAttrString(uuid, "UUID");
        refs->safe_unknown = PyObject_GetAttrString(safe, "unknown");
        refs->str_int = PyUnicode_InternFromString("int");
        refs->str_is_safe = PyUnicode_InternFromString("is_safe");
    }
    Py_XDECREF(safe);
    Py_XDECREF(uuid);
    if (refs->uuid_type != NULL && !PyType_Check(refs->uuid_type))
        PyErr_SetString(PyExc_TypeError, "monostamp: uuid.UUID is not a class");
    if (PyErr_Occurred()) {
        free_refs(refs);
        return NULL;
    }
    return refs;
}

/* Imported by the first caller; of two racing, the first to publish wins. */
static ms_uuid_refs *uuid_refs(ms_state *st)
{
    ms_uuid_refs *refs = atomic_load_explicit(&st->uuid_refs, memory_order_acquire);
    if (refs != NULL)
        return refs;
    ms_uuid_refs *mine = import_refs(), *expected = NULL;
    if (mine == NULL)
        return NULL;
    if (atomic_compare_exchange_strong_explicit(&st->uuid_refs, &expected, mine,
                                                memory_order_acq_rel, memory_order_acquire))
        return mine;
    free_refs(mine);
    return expected;
}

int ms_ids_traverse(ms_state *st, visitproc visit, void *arg)
{
    ms_uuid_refs *refs = atomic_load_explicit(&st->uuid_refs, memory_order_acquire);
    if (refs != NULL) {
        Py_VISIT(refs->uuid_type);
        Py_VISIT(refs->safe_unknown);
    }
    return 0;
}

void ms_ids_clear(ms_state *st)
{
    free_refs(atomic_exchange_explicit(&st->uuid_refs, NULL, memory_order_acq_rel));
}

/* The 128-bit integer of an id, from 32 hex digits: one object made. */
static PyObject *id_int(const uint8_t id[16])
{
    static const char digits[] = "0123456789abcdef";
    char hex[33];
    for (int i = 0; i < 16; i++) {
        hex[2 * i] = digits[id[i] >> 4];
        hex[2 * i + 1] = digits[id[i] & 0xF];
    }
    hex[32] = '\0';
    return PyLong_FromString(hex, NULL, 16);
}

static PyObject *uuid_object(ms_state *st, const uint8_t id[16])
{
    ms_uuid_refs *refs = uuid_refs(st);
    if (refs == NULL)
        return NULL;
    PyObject *value = id_int(id);
    if (value == NULL)
        return NULL;
    PyObject *u = refs->uuid_type->tp_alloc(refs->uuid_type, 0);
    if (u == NULL) {
        Py_DECREF(value);
        return NULL;
    }
    int rc = PyObject_GenericSetAttr(u, refs->str_int, value);
    Py_DECREF(value);
    if (rc < 0 || PyObject_GenericSetAttr(u, refs->str_is_safe, refs->safe_unknown) < 0) {
        Py_DECREF(u);
        return NULL;
    }
    return u;
}

/* ------------------------------------------------------------- uuid7 */

PyObject *ms_draw_uuid7(ms_state *st, monostamp_clock *clock, const char *call)
{
    uint8_t id[16];
    char why[256];
    int rc = monostamp_uuid7(clock, id);
    if (rc != MONOSTAMP_OK)  /* the core's sentence for the clock's state */
        return monostamp_clock_fault(clock, "uuid7", rc, 0, why, sizeof why),
               ms_core_fault(st, rc, call, why);
    return uuid_object(st, id);
}

const char ms_uuid7_ns_doc[] = "uuid7_ns(u, /)\n--\n\n"
    "The stamp (int ns) a UUIDv7 of uuid7() was made of; u is a uuid.UUID or\n"
    "its canonical text.  ValueError for another generator's id.";

PyObject *ms_uuid7_ns(PyObject *module, PyObject *arg)
{
    ms_state *st = PyModule_GetState(module);
    uint8_t id[16];
    if (PyUnicode_Check(arg)) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(arg, &len);
        if (text == NULL)
            return NULL;
        /* The core's sentence for text, as every binding words it. */
        char why[192];
        int64_t ns;
        if (monostamp_uuid7_text_ns(text, (size_t)len, &ns, why, sizeof why) != MONOSTAMP_OK)
            return ms_core_text(PyExc_ValueError, "uuid7_ns()", why);
        return PyLong_FromLongLong(ns);
    } else {
        ms_uuid_refs *refs = uuid_refs(st);
        if (refs == NULL)
            return NULL;
        int is_uuid = PyObject_IsInstance(arg, (PyObject *)refs->uuid_type);
        if (is_uuid < 0)
            return NULL;
        if (!is_uuid)
            return ms_type_error("uuid7_ns() argument", "uuid.UUID or str", arg), NULL;
        PyObject *bytes = PyObject_GetAttrString(arg, "bytes");
        char *data;
        Py_ssize_t size = 0;
        if (bytes != NULL && PyBytes_AsStringAndSize(bytes, &data, &size) == 0 && size == 16)
            memcpy(id, data, 16);
        else if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "uuid7_ns(): %R has %zd bytes, not 16", arg, size);
        Py_XDECREF(bytes);
        if (size != 16)
            return NULL;
    }
    int64_t ns;
    int rc = monostamp_uuid7_ns(id, &ns);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "uuid7_ns(%R)", arg);
    return PyLong_FromLongLong(ns);
}

/* -------------------------------------------------------------- take */

/* n for take(): an int (or an object with __index__), 1 or more. */
static int count_arg(PyObject *arg, const char *fname, int64_t *out)
{
    char what[64];
    snprintf(what, sizeof what, "%s: n", fname);
    if (PyBool_Check(arg) || !PyIndex_Check(arg))
        return ms_type_error(what, "an int", arg);
    PyObject *n = PyNumber_Index(arg);
    if (n == NULL)
        return -1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    Py_DECREF(n);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow)  /* within int64, the core's rule says the rest */
        return ms_rule_error(what, MONOSTAMP_RULE_INT64, arg);
    *out = (int64_t)v;
    return 0;
}

/* range(first, first + n * step, step); the stop may pass int64. */
static PyObject *block_range(int64_t first, int64_t n, int64_t step)
{
    PyObject *step_obj = PyLong_FromLongLong(step);
    PyObject *last = PyLong_FromLongLong(first + (n - 1) * step);
    PyObject *stop = last != NULL && step_obj != NULL ? PyNumber_Add(last, step_obj) : NULL;
    PyObject *result = stop != NULL ? PyObject_CallFunction((PyObject *)&PyRange_Type, "LOO",
                                                            (long long)first, stop, step_obj)
                                    : NULL;
    Py_XDECREF(step_obj);
    Py_XDECREF(last);
    Py_XDECREF(stop);
    return result;
}

PyObject *ms_draw_take(ms_state *st, monostamp_clock *clock, PyObject *arg, const char *fname)
{
    int64_t n = 0, first = 0, step = 0;
    if (count_arg(arg, fname, &n) < 0)
        return NULL;
    int rc = monostamp_clock_take(clock, n, &first, &step);
    char why[256];
    /* The core's sentence: n at fault, the clock's policy or its bound. */
    if (rc != MONOSTAMP_OK)
        return monostamp_clock_fault(clock, "take", rc, n, why, sizeof why),
               ms_core_fault(st, rc, fname, why);
    return block_range(first, n, step);
}
