/* monostamp_capi.h: monostamp's C API for other CPython extensions, in the
 * manner of datetime.h's PyDateTime_CAPI: a struct of function pointers in
 * a capsule of the extension, fetched once by MonostampCAPI_IMPORT.
 *
 *     #include <monostamp_capi.h>     (-I monostamp.get_include())
 *
 *     in the module's exec slot or PyInit:
 *         MonostampCAPI_IMPORT;
 *         if (MonostampAPI == NULL) return -1;   (ImportError raised)
 *     then, the GIL held:
 *         int64_t ns;
 *         if (MonostampAPI->time_ns(&ns) < 0) return NULL;
 *
 * A stamp drawn here is one of the sequence monostamp.time_ns() and the
 * process's other readers draw from; while monostamp.patch() is active and
 * reaches the calling interpreter, it is drawn through the patch's clock
 * and under its lead bound, exactly as a patched time.time_ns() is, so a C
 * extension's reads and the patched stdlib's form one increasing sequence
 * (docs/patch.md, "From C").
 *
 * Compatibility: the struct starts with its version and its size, and
 * functions are only ever appended; a field is there when
 * MonostampCAPI_HAS(field) says so (an older monostamp than this header).
 * Includable from C99 and C++. */
#ifndef MONOSTAMP_CAPI_H
#define MONOSTAMP_CAPI_H

#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This header's version: 1. */
#define MONOSTAMP_CAPI_VERSION 1
#define MONOSTAMP_CAPI_CAPSULE_NAME "monostamp._monostamp._C_API"

typedef struct MonostampCAPI {
    /* The version the extension was built with (>= 1), and sizeof its
     * struct: fields past `size` are not there. */
    uint32_t version;
    uint32_t size;

    /* Version 1.  Each: call with the GIL held (an attached thread state)
     * in any interpreter; 0 and the result, or -1 with a Python exception
     * set (a state file that went bad, a caller's Clock whose on_lead is
     * "error": monostamp.LeadError; Ctrl-C during a lead wait).  Never
     * stalls past the clock's lead bound; may let the GIL go while it
     * waits for it. */

    /* The next stamp as int ns since the Unix epoch (UTC): the default
     * clock's, or the active patch's. */
    int (*time_ns)(int64_t *out_ns);
    /* The same as ns and the local UTC offset in seconds at that instant
     * (the clock's zone), one draw. */
    int (*now)(int64_t *out_ns, int32_t *out_offset_s);
} MonostampCAPI;

#ifndef MONOSTAMP_CAPI_IMPL /* monostamp's own capi.c, as datetime's _PY_DATETIME_IMPL */

/* 1 if the imported struct has `field` (its size covers it). */
#define MonostampCAPI_HAS(field) \
    (MonostampAPI != NULL && \
     offsetof(MonostampCAPI, field) + sizeof(((MonostampCAPI *)0)->field) <= MonostampAPI->size)

/* As datetime.h's PyDateTimeAPI: one pointer per file that includes this
 * header, set by MonostampCAPI_IMPORT (NULL, with ImportError, if
 * monostamp cannot be imported).  The struct is the process's, so one
 * import serves every interpreter. */
static MonostampCAPI *MonostampAPI = NULL;

#define MonostampCAPI_IMPORT \
    (MonostampAPI = (MonostampCAPI *)PyCapsule_Import(MONOSTAMP_CAPI_CAPSULE_NAME, 0))

#endif

#ifdef __cplusplus
}
#endif

#endif
