/*
 * stamp.h: what the two files of monostamp.Stamp share.
 *
 *   stamp.c           the type: construction, text, sequence, order, hash,
 *                     + and - with int ns and timedelta, stamp - stamp
 *   stamp_datetime.c  datetime, float seconds and zones: datetime(),
 *                     fromdatetime(), fromtimestamp(), astimezone()
 *
 * Stamp is subclassable.  The rules follow datetime's: operations and
 * classmethods return the subclass (built by calling it with (utc_ns,
 * offset), as datetime calls its subclasses), and stamp - stamp is a plain
 * int.  Private to bindings/python/.
 */
#ifndef MONOSTAMP_PY_STAMP_H
#define MONOSTAMP_PY_STAMP_H

#include "module.h"

#define MS_STAMP(op) ((ms_stamp_object *)(op))

/* Stamp's tp_dealloc, which only the exec slot's class has as its own
 * (a Python subclass has subtype_dealloc). */
void ms_stamp_dealloc(PyObject *self);

/* The module's Stamp type that `type` is or derives from, or NULL if
 * `type` is no Stamp.  Slots (nb_add, tp_richcompare) get no defining
 * class, and a Python subclass has no module state of its own: this walks
 * tp_base to the type whose dealloc is Stamp's own.  Inline: for Stamp
 * itself it is one load and compare, on the arithmetic's hot path. */
static inline PyTypeObject *ms_stamp_root(PyTypeObject *type)
{
    while (type != NULL) {
        if (type->tp_dealloc == ms_stamp_dealloc)
            return type;
        type = type->tp_base;
    }
    return NULL;
}

/* A subclass of Stamp called with (utc_ns, offset), so that its own
 * __new__ and __init__ run, as datetime does for its subclasses. */
PyObject *ms_stamp_of_subclass(PyTypeObject *cls, int64_t utc_ns, int32_t offset);

/* A Stamp of class `cls` (Stamp or a subclass): Stamp itself allocates
 * inline, a subclass is called (ms_stamp_of_subclass). */
static inline PyObject *ms_stamp_of_class(PyTypeObject *cls, int64_t utc_ns, int32_t offset)
{
    if (cls->tp_dealloc == ms_stamp_dealloc)
        return ms_stamp_new(cls, utc_ns, offset);
    return ms_stamp_of_subclass(cls, utc_ns, offset);
}

/* The same for the result of an operation on `self`: of type(self). */
static inline PyObject *ms_stamp_like(PyObject *self, int64_t utc_ns, int32_t offset)
{
    return ms_stamp_of_class(Py_TYPE(self), utc_ns, offset);
}

/* A timedelta (or subclass) as ns (whole µs): returns 1 and *out_ns, 0 if
 * `obj` is no timedelta, -1 with OverflowError past int64 ns (which some
 * timedeltas reach).  stamp_datetime.c. */
int ms_timedelta_ns(PyObject *obj, int64_t *out_ns);

/* The UTC offset at `utc_ns` in `zone`: None (the local zone), a name the
 * core opens ("UTC", IANA, POSIX TZ), or a datetime.tzinfo.  Returns 0 and
 * *out, or -1 with TypeError / ValueError naming the zone, OverflowError
 * for a tzinfo asked outside datetime's years. */
int ms_zone_offset_at(ms_state *st, PyObject *zone, int64_t utc_ns, int32_t *out);

/* stamp_datetime.c's methods, for stamp.c's table. */
PyObject *ms_stamp_datetime(PyObject *op, PyTypeObject *defining_class, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames);
PyObject *ms_stamp_fromdatetime(PyObject *cls, PyTypeObject *defining_class,
                                PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *ms_stamp_fromtimestamp(PyObject *cls, PyTypeObject *defining_class,
                                 PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *ms_stamp_astimezone(PyObject *op, PyTypeObject *defining_class, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames);
extern const char ms_stamp_datetime_doc[];
extern const char ms_stamp_fromdatetime_doc[];
extern const char ms_stamp_fromtimestamp_doc[];
extern const char ms_stamp_astimezone_doc[];

#endif
