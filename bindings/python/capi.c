/* capi.c: the C API for other extensions (monostamp/monostamp_capi.h):
 * a capsule under the extension, monostamp._monostamp._C_API, holding one
 * static struct of functions: no Python object, so one struct serves every
 * interpreter.  Each draw goes through the active patch when one reaches
 * the calling interpreter (patch.h's acquire: its clock and lead bound),
 * else through the default clock, as monostamp.time_ns() does. */
#include "patch.h"

#define MONOSTAMP_CAPI_IMPL /* the struct's maker: no MonostampAPI pointer here */
#include "monostamp/monostamp_capi.h"

/* One draw of `flags`: 0, or -1 with the error raised, its context `call`. */
static int capi_draw(unsigned flags, const char *call, monostamp_stamp *out)
{
    active_clock a;
    if (acquire(&a)) {
        int rc = ms_patch_draw(&a, (int)flags, call, out);
        RELEASE(&a);
        return rc;
    }
    monostamp_clock *clock;
    int rc = monostamp_default_clock(&clock);
    if (rc == MONOSTAMP_OK)
        rc = monostamp_draw(clock, flags, 0, out);
    if (rc != MONOSTAMP_OK) {
        if (monostamp_default_clock(&clock) != MONOSTAMP_OK)
            ms_default_clock_error(NULL);
        else /* the default clock waits, so never LeadError: no state */
            raise_core(NULL, rc, NULL, "%s", call);
        return -1;
    }
    return 0;
}

static int capi_time_ns(int64_t *out_ns)
{
    monostamp_stamp s;
    if (capi_draw(0, "monostamp C API time_ns()", &s) < 0)
        return -1;
    *out_ns = s.utc_ns;
    return 0;
}

static int capi_now(int64_t *out_ns, int32_t *out_offset_s)
{
    monostamp_stamp s;
    if (capi_draw(MONOSTAMP_DRAW_OFFSET, "monostamp C API now()", &s) < 0)
        return -1;
    *out_ns = s.utc_ns;
    *out_offset_s = s.offset_s;
    return 0;
}

static MonostampCAPI capi = {
    MONOSTAMP_CAPI_VERSION,
    sizeof(MonostampCAPI),
    capi_time_ns,
    capi_now,
};

int ms_capi_exec(PyObject *module)
{
    PyObject *capsule = PyCapsule_New(&capi, MONOSTAMP_CAPI_CAPSULE_NAME, NULL);
    if (capsule == NULL)
        return -1;
    int rc = PyModule_AddObjectRef(module, "_C_API", capsule);
    Py_DECREF(capsule);
    return rc;
}
