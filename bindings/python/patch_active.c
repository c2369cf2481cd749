/*
 * patch_active.c: the active clock of monostamp.patch(), the one the
 * replacements draw from: its publication and the draws on it.  The record
 * is swapped under patch_swap.c's lock; readers copy it with acquire()
 * (patch.h), which takes a reference to its owner so that a swap cannot
 * free the clock under a draw.
 */
#include "patch.h"

#include "os.h" /* the core's wall-clock reading and nap, whatever the OS */

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

/*
 * The patch's own lead bound (MS_PATCH_MAX_LEAD_NS, on the default clock).
 * The core's bound would fail or wait *before* handing a stamp out, but the
 * default clock is everyone's (monostamp.now() keeps its 1 s): so the
 * patch bounds its own draws after the fact, waiting until the stamp it is
 * about to return leads the wall clock by no more than the bound.  That is
 * the same promise to the caller (no patched value is more than the bound
 * ahead of real time when it is returned), at the cost of one more reading
 * on one draw in MS_PATCH_LEAD_CHECK_EVERY.  The counters are under the GIL.
 */
static unsigned draws_since_check;
static int64_t last_bounded_ns = INT64_MIN; /* the latest stamp a bounded draw returned */

/* Waits (GIL released) until `stamp_ns` leads the wall clock by at most
 * `bound_ns`.  Naps are short, so a wall clock stepped meanwhile is seen. */
static void wait_for_lead(int64_t stamp_ns, int64_t bound_ns)
{
    int64_t real;
    if (monostamp__os_clock_read(MONOSTAMP_SOURCE_REALTIME, &real) != MONOSTAMP_OK ||
        stamp_ns - real <= bound_ns)
        return;
    Py_BEGIN_ALLOW_THREADS
    /* A lead far past the bound is a step of the wall clock back, not a
     * burst: the core's own bound (1 s, then a LeadError) deals with it;
     * here at most one bound is waited. */
    int64_t give_up = monostamp__os_monotonic_ns() + bound_ns + MS_PATCH_MAX_LEAD_NS;
    while (stamp_ns - real > bound_ns && monostamp__os_monotonic_ns() < give_up) {
        int64_t behind = stamp_ns - real - bound_ns;
        monostamp__os_nap_ns(behind < 1000000 ? behind : 1000000);
        if (monostamp__os_clock_read(MONOSTAMP_SOURCE_REALTIME, &real) != MONOSTAMP_OK)
            break;
    }
    Py_END_ALLOW_THREADS
}

void ms_patch_settle_lead(void)
{
    if (last_bounded_ns != INT64_MIN)
        wait_for_lead(last_bounded_ns, MS_PATCH_MAX_LEAD_NS);
    last_bounded_ns = INT64_MIN;
}

int ms_patch_draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out)
{
    int rc = draw(a->clock, kind, out);
    if (rc != MONOSTAMP_OK) {
        /* A Clock's type leads to its module's LeadError.  The default
         * clock (owner None) waits at its bound; only a lead no wait can
         * cover (the wall clock stepped back) fails, with the core's
         * generic message. */
        ms_state *st = a->owner != Py_None ? ms_state_of_type(Py_TYPE(a->owner)) : NULL;
        raise_core(st, rc, NULL, "%s", call);
        return -1;
    }
    if (kind != DRAW_NOW_US)
        out->offset_s = 0;
    if (a->lead_bound_ns != 0) {
        if (out->utc_ns > last_bounded_ns)
            last_bounded_ns = out->utc_ns;
        if (++draws_since_check % MS_PATCH_LEAD_CHECK_EVERY == 0)
            wait_for_lead(out->utc_ns, a->lead_bound_ns);
    }
    return 0;
}
