/* stamp.h: what stamp.c (the type, text, order, arithmetic) and
 * stamp_datetime.c (datetime, float seconds, zones) share.  As datetime's,
 * operations and classmethods return the subclass, made by calling it with
 * (utc_ns, offset); stamp - stamp is a plain int. */
#ifndef MONOSTAMP_PY_STAMP_H
#define MONOSTAMP_PY_STAMP_H

#include "module.h"

#define MS_STAMP(op) ((ms_stamp_object *)(op))

/* Only Stamp itself has it as tp_dealloc (a subclass: subtype_dealloc). */
void ms_stamp_dealloc(PyObject *self);

/* The Stamp type `type` is or derives from, or NULL: slots get no
 * defining class.  For Stamp itself one compare (the arithmetic's path). */
static inline PyTypeObject *ms_stamp_root(PyTypeObject *type)
{
    while (type != NULL && type->tp_dealloc != ms_stamp_dealloc)
        type = type->tp_base;
    return type;
}

/* The module state of a Stamp (sub)class: a subclass's own has none. */
#define MS_STAMP_STATE(type) ms_state_of_type(ms_stamp_root(type))

/* A Stamp of `cls`: Stamp allocated inline, a subclass called. */
static inline PyObject *ms_stamp_of_class(PyTypeObject *cls, int64_t utc_ns, int32_t offset)
{
    if (cls->tp_dealloc == ms_stamp_dealloc)
        return ms_stamp_new(cls, utc_ns, offset);
    return PyObject_CallFunction((PyObject *)cls, "Li", (long long)utc_ns, (int)offset);
}

/* A delta: int ns or a timedelta (a float and a bool are refused): 1 and
 * *out_ns, 0 for NotImplemented, -1 with OverflowError past int64 ns. */
int ms_delta_ns(PyObject *obj, int64_t *out_ns);

/* The UTC offset at `utc_ns` in `zone`: None (local), a name the core
 * opens, or a datetime.tzinfo.  0, or -1 with the error. */
int ms_zone_offset_at(ms_state *st, PyObject *zone, int64_t utc_ns, int32_t *out);

/* stamp_datetime.c's methods, with their docs. */
PyObject *ms_stamp_datetime(PyObject *op, PyObject *unused);
PyObject *ms_stamp_fromdatetime(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames);
PyObject *ms_stamp_fromtimestamp(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames);
PyObject *ms_stamp_astimezone(PyObject *op, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames);
extern const char ms_stamp_datetime_doc[], ms_stamp_fromdatetime_doc[],
    ms_stamp_fromtimestamp_doc[], ms_stamp_astimezone_doc[];

#endif
