/*
 * patch_active.c: the active clock of monostamp.patch(), the one the
 * replacements draw from: its publication and the draws on it.  The record
 * is swapped under patch_swap.c's lock; readers copy it with acquire()
 * (patch.h), which takes a reference to its owner so that a swap cannot
 * free the clock under a draw.
 */
#include "patch.h"

_Atomic(active_clock *) ms_patch_active;

active_clock *ms_patch_swap_active(active_clock *next)
{
    return atomic_exchange_explicit(&ms_patch_active, next, memory_order_acq_rel);
}

void ms_patch_free_active(active_clock *a)
{
    if (a == NULL)
        return;
    Py_DECREF(a->owner);
    PyMem_RawFree(a);
}

static int draw(monostamp_clock *clock, int kind, monostamp_stamp *out)
{
    return kind == DRAW_NOW_US    ? monostamp_now_us(clock, out)
           : kind == DRAW_TIME_US ? monostamp_time_us(clock, &out->utc_ns)
                                  : monostamp_time_ns(clock, &out->utc_ns);
}

int ms_patch_draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out)
{
    int rc;
    if (a->may_wait) {
        Py_BEGIN_ALLOW_THREADS
        rc = draw(a->clock, kind, out);
        Py_END_ALLOW_THREADS
    } else {
        rc = draw(a->clock, kind, out);
    }
    if (rc != MONOSTAMP_OK) {
        /* A Clock's type leads to its module's LeadError; the default
         * clock (owner None) has no lead bound, so never raises one. */
        ms_state *st = a->owner != Py_None ? ms_state_of_type(Py_TYPE(a->owner)) : NULL;
        raise_core(st, rc, NULL, "%s", call);
        return -1;
    }
    if (kind != DRAW_NOW_US)
        out->offset_s = 0;
    return 0;
}
