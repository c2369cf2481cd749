/*
 * ids.h: monostamp.uuid7(), uuid7_ns(), take() and the Clock methods of the
 * same names (ids.c).  The Clock methods live in ids.c beside the module
 * functions; clock.c lists them in Clock's method table and lends its core
 * clock through ms_clock_core() (module.h).
 */
#ifndef MONOSTAMP_PY_IDS_H
#define MONOSTAMP_PY_IDS_H

#include "module.h"

/* Module functions, for module.c's method table. */
PyObject *ms_uuid7(PyObject *module, PyObject *unused);
PyObject *ms_uuid7_ns(PyObject *module, PyObject *arg);
PyObject *ms_take(PyObject *module, PyObject *arg);
extern const char ms_uuid7_doc[];
extern const char ms_uuid7_ns_doc[];
extern const char ms_take_doc[];

/* Clock methods, for clock.c's method table. */
PyObject *ms_clock_uuid7(PyObject *clock, PyObject *unused);
PyObject *ms_clock_take(PyObject *clock, PyObject *arg);
extern const char ms_clock_uuid7_doc[];
extern const char ms_clock_take_doc[];

/* The references ids.c imports on first use (uuid is not imported with
 * monostamp: it costs milliseconds), for the module's traverse and clear. */
int ms_ids_traverse(ms_state *st, visitproc visit, void *arg);
void ms_ids_clear(ms_state *st);

#endif
