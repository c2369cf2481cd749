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

int ms_patch_draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out)
{
    int rc = monostamp_draw(a->clock, (unsigned)kind, a->lead_bound_ns, out);
    if (rc != MONOSTAMP_OK) {
        /* A Clock's type leads to its module's LeadError; the default
         * clock (owner None) only ever waits at its bound. */
        ms_state *st = a->owner != Py_None ? ms_state_of_type(Py_TYPE(a->owner)) : NULL;
        raise_core(st, rc, NULL, "%s", call);
        return -1;
    }
    return 0;
}
