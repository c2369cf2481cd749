/*
 * capi.h: what _monostamp lends to the other extensions of the package,
 * through the capsule monostamp._monostamp._C_API, in the manner of
 * CPython's datetime.h (PyDateTime_CAPI): a versioned struct of function
 * pointers.
 *
 * It exists so that monostamp._patch (built per CPython version, since it
 * rewrites interpreter internals) draws its stamps from the very clocks of
 * _monostamp (built once for the stable ABI) instead of compiling its own
 * copy of the core, which would hold a second default clock: a second
 * sequence.  A user of the capsule includes monostamp.h (for the types
 * alone: it calls no core symbol) and this header, and calls
 *
 *     const ms_capi *api = PyCapsule_Import(MS_CAPI_NAME, 0);
 *
 * then checks api->version >= MS_CAPI_VERSION.  Fields are only ever added
 * at the end, with a new version.  Every function may be called from any
 * thread; the draws are the core's and are lock-free.
 */
#ifndef MONOSTAMP_PY_CAPI_H
#define MONOSTAMP_PY_CAPI_H

#include <Python.h>

#include <stdint.h>

#include "monostamp.h"

#define MS_CAPI_NAME "monostamp._monostamp._C_API"
#define MS_CAPI_VERSION 1

typedef struct ms_capi {
    /* MS_CAPI_VERSION of the _monostamp that made it, and sizeof(ms_capi). */
    int version;
    size_t size;
    /*
     * The core clock behind `obj`: a monostamp.Clock's own, or the
     * process's default clock for None.  Stores it in *out and whether a
     * draw on it may sleep (a bounded lead with on_lead='wait': the caller
     * should release the GIL around the draw) in *may_wait, and returns 0.
     * The clock lives as long as `obj` (the default clock: for ever).
     * Returns -1 with TypeError for any other object, or with the error
     * that makes the default clock unusable.  Needs the GIL (an attached
     * thread state).
     */
    int (*clock_of)(PyObject *obj, monostamp_clock **out, int *may_wait);
    /* monostamp_time_ns, monostamp_time_us and monostamp_now_us of the
     * one core in _monostamp (csrc/monostamp.h gives their contracts).
     * They touch no Python object: callable with the GIL released. */
    int (*time_ns)(monostamp_clock *clock, int64_t *out_ns);
    int (*time_us)(monostamp_clock *clock, int64_t *out_ns);
    int (*now_us)(monostamp_clock *clock, monostamp_stamp *out);
    /*
     * Raises the exception for the core's `code` (< 0) from a draw on the
     * clock of `obj` (the object given to clock_of), as _monostamp's own
     * calls do: the message is `call`, ": " and the core's reason;
     * monostamp.LeadError for a lead error.  Returns NULL.  Needs the GIL.
     */
    PyObject *(*raise_error)(PyObject *obj, int code, const char *call);
} ms_capi;

#ifdef MONOSTAMP_PY_MODULE_H
/*
 * Inside _monostamp only (module.h is included first): clock.c's side of
 * clock_of.  If `obj` is a monostamp.Clock, stores its core clock and
 * whether a draw may sleep, and returns 1; else returns 0.  Never raises.
 */
int ms_clock_core(PyObject *obj, monostamp_clock **out, int *may_wait);
/* The unique float (time()) and aware datetime (now_datetime(tz)) that
 * Clock and the default clock's module functions share (clock.c): drawn at
 * whole-µs grain, errors raised with the context `call`. */
PyObject *ms_draw_time(ms_state *st, monostamp_clock *clock, int may_wait, const char *call);
PyObject *ms_draw_datetime(ms_state *st, monostamp_clock *clock, int may_wait, PyObject *tz,
                           const char *call);
#endif

#endif
