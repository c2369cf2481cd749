/*
 * sleep_finish.c: the plan of a sleep that a host language finishes
 * (monostamp_sleep_begin / monostamp_sleep_step, the bindings' sleeps).
 *
 * The core wakes within a fraction of a us of its deadline T, but after a
 * long sleep an interpreter's way back to the caller is cold (re-taking
 * its lock, caches and TLB gone to other processes): measured from Python,
 * a 30 ms sleep ended a median 33 us late, 9 us from Lua.  The
 * contract -- asked for T with tolerance D, the caller runs between T and
 * T + D -- is about the caller's code, so with L the lead learned for
 * sleeps of this length:
 *
 *   D >= L: the core alone, to T at tolerance D - L: it lands in
 *     [T, T + D - L] and the host follows within L.  No spin.
 *   D < L: the core to T - L at tolerance 0, then the host warms its way
 *     back once and spins in its own language until T.
 *   less than LEAD_MIN left, or less than L: the spin alone.
 *
 * The core's part is made in naps of at most 50 ms, the last at the
 * caller's tolerance: the core resumes its sleep after a signal, and the
 * hosts run their handlers (Python) and hooks (Lua's Ctrl-C) only between
 * calls.
 *
 * The lead is learned per band of the time left at the call, by powers of
 * 10 (the core's margin and the cold path both grow with the length).
 * After a nap to T - L the host's first reading gives x, how late it had
 * control; the lead covers x + x/4 + 2 us at once (at most 4x per step, so
 * one preempted wake-up does not set it) and comes down by 1/32 of the
 * gap, rounded up: it tracks the recent worst case, as the core's margin
 * does, with a faster decay (a host sleeps less often than C does).  After
 * a nap to T at D - L, x less that allowance is a lower bound of the way
 * back: it may raise the lead, never lower it.  Clamped to [15 us, 250 us]:
 * beyond, it is other processes holding the CPU, which no spin fixes.
 *
 * One table per copy of the core: each binding embeds its own (the Python
 * extension and the Lua module hide their core's symbols), so Python and
 * Lua in one process keep separate leads, as they should: Python's way
 * back costs about three times Lua's.  Relaxed atomics, as the margins in
 * sleep.c: a lost update between racing threads loses one observation.
 */
#include "config.h"

#include <stdatomic.h>

#include "learned.h"

#define LEAD_MIN_NS ((int64_t)MONOSTAMP_SLEEP_LEAD_MIN_NS)
#define LEAD_MAX_NS ((int64_t)MONOSTAMP_SLEEP_LEAD_MAX_NS)
#define LEAD_HEADROOM_NS INT64_C(2000)
#define LEAD_DECAY 32
#define LEAD_JUMP_MAX 4

/* Naps of at most this; all but the last at SLICE_TOLERANCE_NS. */
#define SLICE_NS INT64_C(50000000)
#define SLICE_TOLERANCE_NS INT64_C(5000000)

/* Band b takes sleeps with less than lead_limit_ns[b] left (the last, the
 * rest): learned.h. */
#define LEAD_BANDS 7
static const int64_t lead_limit_ns[LEAD_BANDS - 1] = {
    INT64_C(10000), INT64_C(100000), INT64_C(1000000), INT64_C(10000000),
    INT64_C(100000000), INT64_C(1000000000)
};
/* Starting leads: several times the median x a fresh process showed here
 * (Python 1.4 / 12.5 / 33 us, Lua 0.3 / 3.8 / 9.2 us at 0.3 / 3 / 30 ms),
 * so that its first sleeps are on time before it has learned anything;
 * the first two bands spin whole anyway. */
#define LEAD_START { INT64_C(15000), INT64_C(15000), INT64_C(25000), INT64_C(50000), \
                    INT64_C(100000), INT64_C(150000), INT64_C(200000) }
static const int64_t lead_start_ns[LEAD_BANDS] = LEAD_START;
static _Atomic int64_t lead_ns[LEAD_BANDS] = LEAD_START;
static _Atomic int lead_seen[LEAD_BANDS];
static const monostamp__learned leads = {
    LEAD_BANDS, lead_limit_ns, lead_start_ns, LEAD_MIN_NS, LEAD_MAX_NS,
    LEAD_HEADROOM_NS, LEAD_DECAY, LEAD_JUMP_MAX, lead_ns, lead_seen
};

/* The core's part of a plan, in its opaque core_: the band of the lead
 * learned, the stage, and the target of the naps at its tolerance. */
#define BAND(p) ((p)->core_[0])
#define STAGE(p) ((p)->core_[1])
#define TARGET(p) ((p)->core_[2])
#define TARGET_TOL(p) ((p)->core_[3])
_Static_assert(sizeof(monostamp_sleep_plan) == MONOSTAMP_SLEEP_PLAN_SIZE,
               "monostamp_host.h states the plan's size");

/* A plan's STAGE: what its core part is (naps to TARGET at
 * TARGET_TOL on the last), or OVER once its last step is made. */
enum { OVER = 0, TO_LEAD, TO_DEADLINE, ALONE };

/* The next nap toward the core part's target, from `now_ns`. */
static int next_nap(monostamp_sleep_plan *p, int64_t now_ns)
{
    /* now_ns < target - SLICE rather than target - now > SLICE: no
     * overflow whatever reading a host passes. */
    if (TARGET(p) > INT64_MIN + SLICE_NS && now_ns < TARGET(p) - SLICE_NS) {
        p->until_ns = now_ns + SLICE_NS;
        p->until_tolerance_ns = SLICE_TOLERANCE_NS;
        p->last_nap = 0;
    } else {
        p->until_ns = TARGET(p);
        p->until_tolerance_ns = TARGET_TOL(p);
        p->last_nap = 1;
    }
    return MONOSTAMP_SLEEP_NAP;
}

int monostamp_sleep_begin(monostamp_sleep_plan *p, int64_t deadline_ns, int64_t tolerance_ns,
                          int64_t now_ns, int finish)
{
    p->deadline_ns = deadline_ns;
    p->until_ns = deadline_ns;
    p->until_tolerance_ns = 0;
    p->last_nap = 0;
    BAND(p) = 0;
    STAGE(p) = OVER;
    if (tolerance_ns < 0)
        tolerance_ns = 0;
    if (now_ns >= deadline_ns)
        return MONOSTAMP_SLEEP_DONE; /* also: a far past one, never subtracted from */
    TARGET(p) = deadline_ns;
    TARGET_TOL(p) = tolerance_ns;
    if (!finish) {
        STAGE(p) = ALONE;
        return next_nap(p, now_ns);
    }
    /* deadline > now: the difference fits unless now is negative, which
     * no reading of the monotonic clock is; saturate for such a host. */
    int64_t left = now_ns < 0 && deadline_ns > INT64_MAX + now_ns ? INT64_MAX : deadline_ns - now_ns;
    if (left <= LEAD_MIN_NS)
        return MONOSTAMP_SLEEP_SPIN; /* shorter than any lead */
    int b = monostamp__learned_band(&leads, left);
    int64_t lead = monostamp__learned_value(&leads, b);
    BAND(p) = b;
    if (tolerance_ns >= lead) {
        STAGE(p) = TO_DEADLINE;
        TARGET_TOL(p) = tolerance_ns - lead;
        return next_nap(p, now_ns);
    }
    if (left <= lead)
        return MONOSTAMP_SLEEP_SPIN;
    STAGE(p) = TO_LEAD;
    TARGET(p) = deadline_ns - lead; /* > now */
    TARGET_TOL(p) = 0;
    return next_nap(p, now_ns);
}

int monostamp_sleep_step(monostamp_sleep_plan *p, int64_t now_ns)
{
    int stage = (int)STAGE(p);
    if (stage == OVER)
        return MONOSTAMP_SLEEP_DONE;
    if (!p->last_nap)
        return next_nap(p, now_ns);
    p->last_nap = 0;
    STAGE(p) = OVER;
    if (stage == ALONE)
        return MONOSTAMP_SLEEP_DONE;
    int64_t target = TARGET(p);
    /* How late the host had control, less the nap's own allowance: in
     * unsigned arithmetic, exact for any two int64 with now > target. */
    uint64_t late = now_ns > target ? (uint64_t)now_ns - (uint64_t)target : 0;
    uint64_t allowed = (uint64_t)TARGET_TOL(p);
    late = late > allowed ? late - allowed : 0;
    int exact = stage == TO_LEAD;
    monostamp__learned_observe(&leads, (int)BAND(p), late > (uint64_t)LEAD_MAX_NS ? LEAD_MAX_NS : (int64_t)late, exact);
    return exact ? MONOSTAMP_SLEEP_WARM : MONOSTAMP_SLEEP_DONE;
}

/* Test hooks (tests/c/test_sleep_finish.c), declared here rather than in a
 * header, as sleep.c's: the lead a sleep with `length_ns` left would use
 * now and whether its band has been observed; setting it as if observed;
 * every band back to its start.  Not thread-safe against sleeps. */
MONOSTAMP__HIDDEN_BEGIN
int64_t monostamp__sleep_lead_ns(int64_t length_ns, int *out_seen);
void monostamp__sleep_lead_set(int64_t length_ns, int64_t lead);
void monostamp__sleep_lead_reset(void);
MONOSTAMP__HIDDEN_END

int64_t monostamp__sleep_lead_ns(int64_t length_ns, int *out_seen)
{
    int b = monostamp__learned_band(&leads, length_ns);
    if (out_seen != NULL)
        *out_seen = atomic_load_explicit(&lead_seen[b], memory_order_relaxed);
    return monostamp__learned_value(&leads, b);
}

void monostamp__sleep_lead_set(int64_t length_ns, int64_t lead)
{
    monostamp__learned_set(&leads, monostamp__learned_band(&leads, length_ns), lead);
}

void monostamp__sleep_lead_reset(void)
{
    monostamp__learned_reset(&leads);
}
