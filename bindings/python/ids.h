/*
 * ids.h: UUIDv7 ids and blocks of stamps (ids.c): what Clock.uuid7() and
 * Clock.take() draw (clock.c), and monostamp.uuid7_ns().
 */
#ifndef MONOSTAMP_PY_IDS_H
#define MONOSTAMP_PY_IDS_H

#include "module.h"

/* The next id of `clock` as a uuid.UUID, errors raised with the context
 * `call` ("uuid7()"). */
PyObject *ms_draw_uuid7(ms_state *st, monostamp_clock *clock, const char *call);
/* n = `arg` stamps of `clock` reserved, as range(first, stop, step);
 * errors name `fname` ("take()"). */
PyObject *ms_draw_take(ms_state *st, monostamp_clock *clock, PyObject *arg, const char *fname);

/* monostamp.uuid7_ns(), for module.c's method table. */
PyObject *ms_uuid7_ns(PyObject *module, PyObject *arg);
extern const char ms_uuid7_ns_doc[];

/* The references ids.c imports on first use (uuid is not imported with
 * monostamp: it costs milliseconds), for the module's traverse and clear. */
int ms_ids_traverse(ms_state *st, visitproc visit, void *arg);
void ms_ids_clear(ms_state *st);

#endif
