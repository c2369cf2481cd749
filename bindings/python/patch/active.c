/*
 * active.c: the active clock of monostamp._patch, the one the replacements
 * draw from: its publication and the draws on it.  The record is swapped
 * under swap.c's lock; readers copy it with acquire() (patch.h), which
 * takes a reference to its owner so that a swap cannot free the clock
 * under a draw.
 */
#include "patch.h"

const ms_capi *ms_patch_api;

_Atomic(active_clock *) ms_patch_active;

#ifdef Py_GIL_DISABLED
/* Without the GIL nothing else keeps a swap from freeing the record
 * between a reader's load and its incref: this lock spans both. */
PyMutex ms_patch_read_lock;
#endif

active_clock *ms_patch_swap_active(active_clock *next)
{
    READ_LOCK();
    active_clock *old = atomic_exchange_explicit(&ms_patch_active, next, memory_order_acq_rel);
    READ_UNLOCK();
    return old;
}

void ms_patch_free_active(active_clock *a)
{
    if (a == NULL)
        return;
    Py_DECREF(a->owner);
    PyMem_RawFree(a);
}

int ms_patch_draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out)
{
    const ms_capi *api = ms_patch_api;
    int rc;
    if (a->may_wait) {
        Py_BEGIN_ALLOW_THREADS
        rc = kind == DRAW_NOW_US ? api->now_us(a->clock, out)
             : kind == DRAW_TIME_US ? api->time_us(a->clock, &out->utc_ns)
                                    : api->time_ns(a->clock, &out->utc_ns);
        Py_END_ALLOW_THREADS
    } else {
        rc = kind == DRAW_NOW_US ? api->now_us(a->clock, out)
             : kind == DRAW_TIME_US ? api->time_us(a->clock, &out->utc_ns)
                                    : api->time_ns(a->clock, &out->utc_ns);
    }
    if (rc != MONOSTAMP_OK) {
        api->raise_error(a->owner, rc, call);
        return -1;
    }
    if (kind != DRAW_NOW_US)
        out->offset_s = 0;
    return 0;
}
