/*
 * sleep.c: sleeping to a monotonic deadline T with a tolerance D, under
 * the contract FreeBSD's callout rework (calloutng) set: wake between T
 * and T + D, never early, never gratuitously late.
 *
 * A kernel sleep alone cannot promise a small D: Linux wakes a timer at its
 * deadline plus the thread's timer slack (50 us by default) when nothing
 * else fires sooner, and even at 1 ns of slack the wake-up costs 16 us or
 * more, 80-130 us for long sleeps on a VM whose idle vCPU the host parks
 * (docs/sleep.md).  So each call picks one of two strategies from
 * M, the wake-up lateness the kernel has shown for sleeps of this length:
 *
 *   relaxed (D >= M): one absolute sleep to T, with the thread's timer
 *     slack narrowed to D - M when it is wider, and restored after.  The
 *     slack is never widened: with nothing to batch with, Linux would fire
 *     at T + slack, which is exactly the gratuitous lateness to avoid.
 *   tight (D < M): an absolute sleep at 1 ns of slack to T + D - M, then a
 *     spin on the monotonic clock until T.  If the kernel keeps within M,
 *     the call ends at T (or by T + D) however early the kernel returns.
 *
 * M is calibrated at run time from the kernel sleeps this process makes.
 * A band of lengths not slept yet starts from what a shorter band has
 * measured when that is more than its default guess, since wake-ups grow
 * later with length: a fresh process's first sleeps of each length are
 * covered by the machine's measured cost, not by a guess made elsewhere.
 *
 * The spin yields the CPU (sched_yield) on a machine too loaded for the
 * spin to help: when the band's margin has reached its ceiling and this
 * spin has itself been preempted.  Not sooner: with a CPU-bound thread
 * beside it, a yield hands over a whole scheduler slice (ms), and yielding
 * at every preemption moved the p90 lateness of 300 us sleeps from 0.3 us
 * to 0.02-6.5 ms (docs/sleep.md).
 */
#include "config.h"

#include <stdatomic.h>

#include "learned.h"
#include "os.h"

/* Below this, entering the kernel costs more than it saves: a sleep to a
 * deadline already past still takes ~17 us here.  Spin instead. */
#define KERNEL_MIN_NS INT64_C(20000)

/* The margin's bounds.  The floor is the kernel's own wake-up cost; the
 * ceiling keeps one preempted wake-up on a busy machine from turning every
 * later sleep into milliseconds of spinning. */
#define MARGIN_MIN_NS INT64_C(20000)
#define MARGIN_MAX_NS INT64_C(1000000)
/* A margin covers an observed lateness x as x + x/4 + this. */
#define MARGIN_HEADROOM_NS INT64_C(5000)
/* A lower observation moves the margin 1/MARGIN_DECAY of the way down
 * (rounded up): slowly, so the margin tracks the recent worst case rather
 * than the typical one.  Replaying measured wake-ups, 1/64 left ~0.9 % of tight
 * sleeps late on a quiet machine and 1/128 ~0.6 %, for ~60 % more spin. */
#define MARGIN_DECAY 128
/* A higher observation raises the margin at once, but at most this many
 * times over, so a single multi-millisecond preemption does not set it. */
#define MARGIN_JUMP_MAX 4

/* A gap this long between two clock readings of the spin means the thread
 * lost the CPU: the machine is contended. */
#define SPIN_PREEMPTED_NS INT64_C(20000)
/* Yield only while more than this is left: on an idle CPU a yield is a
 * ~0.3-1 us system call, so it cannot carry the spin past the deadline. */
#define SPIN_YIELD_HORIZON_NS INT64_C(10000)

/*
 * Wake-up lateness grows with the sleep's length (a parked vCPU wakes
 * slower than a busy one), so the margin is learned per band of the time
 * left when the call starts: < 128 us, < 1 ms, < 8 ms, < 64 ms, longer
 * (learned.h: process-wide, lock-free, inherited across fork()).
 */
#define MARGIN_BANDS 5
static const int64_t margin_limit_ns[MARGIN_BANDS - 1] = {
    INT64_C(128000), INT64_C(1000000), INT64_C(8000000), INT64_C(64000000)
};
/* Starting values: about the p99 wake-up lateness at 1 ns of slack
 * measured on these machines when quiet (docs/sleep.md). */
#define MARGIN_START { INT64_C(60000), INT64_C(150000), INT64_C(250000), INT64_C(250000), \
                      INT64_C(250000) }
static const int64_t margin_start_ns[MARGIN_BANDS] = MARGIN_START;
static _Atomic int64_t margin_ns[MARGIN_BANDS] = MARGIN_START;
static _Atomic int margin_seen[MARGIN_BANDS];
static const monostamp__learned margins = {
    MARGIN_BANDS, margin_limit_ns, margin_start_ns, MARGIN_MIN_NS, MARGIN_MAX_NS,
    MARGIN_HEADROOM_NS, MARGIN_DECAY, MARGIN_JUMP_MAX, margin_ns, margin_seen
};

/* Spins until the monotonic clock reads `deadline_ns` or later: the only
 * exit, which is what makes a sleep never early.  Between readings a
 * `pause`; or, if `may_yield` (the margin is at its ceiling: the machine
 * has already shown it cannot hold this length) and the spin has been
 * preempted, a yield, so the threads the machine is busy with get the CPU
 * this spin would only burn; never within the last SPIN_YIELD_HORIZON_NS. */
static void spin_until(int64_t deadline_ns, int may_yield)
{
    int contended = 0;
    int64_t prev = monostamp__os_monotonic_ns();
    while (prev < deadline_ns) {
        if (contended && deadline_ns - prev > SPIN_YIELD_HORIZON_NS)
            monostamp__os_yield();
        else
            monostamp__os_cpu_relax();
        int64_t now = monostamp__os_monotonic_ns();
        if (may_yield && now - prev > SPIN_PREEMPTED_NS)
            contended = 1;
        prev = now;
    }
}

/* The kernel sleep with the thread's slack at most `slack_ns` for its
 * duration; *used_ns says what it was (0 where there is no slack knob). */
static int kernel_sleep_with_slack(int64_t deadline_ns, int64_t slack_ns,
                                   int64_t *used_ns)
{
    int64_t old = monostamp__os_timer_slack_get();
    /* old < 0: no slack knob here, or a real-time thread, whose slack the
     * kernel ignores anyway.  Only narrowing is worth two system calls. */
    int narrowed = old > slack_ns && monostamp__os_timer_slack_set(slack_ns) == MONOSTAMP_OK;
    *used_ns = narrowed ? slack_ns : (old > 0 ? old : 0);
    int rc = monostamp__os_sleep_until(deadline_ns);
    if (narrowed)
        (void)monostamp__os_timer_slack_set(old);
    return rc;
}

/* Test hooks (tests/c/test_sleep.c), declared here rather than in a
 * header because nothing in the core may depend on the calibration: the
 * margin a sleep of `length_ns` would use now, and whether its band has
 * been observed; and setting that band's margin as if observed. */
MONOSTAMP__HIDDEN_BEGIN
int64_t monostamp__sleep_margin_ns(int64_t length_ns, int *out_seen);
void monostamp__sleep_margin_set(int64_t length_ns, int64_t margin);
MONOSTAMP__HIDDEN_END

int64_t monostamp__sleep_margin_ns(int64_t length_ns, int *out_seen)
{
    int b = monostamp__learned_band(&margins, length_ns);
    *out_seen = atomic_load_explicit(&margin_seen[b], memory_order_relaxed);
    return monostamp__learned_value(&margins, b);
}

void monostamp__sleep_margin_set(int64_t length_ns, int64_t margin)
{
    monostamp__learned_set(&margins, monostamp__learned_band(&margins, length_ns), margin);
}

int64_t monostamp_monotonic_ns(void)
{
    return monostamp__os_monotonic_ns();
}

int monostamp_sleep_until(int64_t deadline_ns, int64_t tolerance_ns)
{
    if (tolerance_ns < 0)
        return MONOSTAMP_EINVAL;
    int64_t now = monostamp__os_monotonic_ns();
    if (now >= deadline_ns)
        return MONOSTAMP_OK; /* also covers every negative deadline */
    int64_t remaining = deadline_ns - now;
    int b = monostamp__learned_band(&margins, remaining);
    int64_t m = monostamp__learned_value(&margins, b);

    if (tolerance_ns >= m) {
        /* Relaxed: the kernel alone is expected to land in [T, T + D]. */
        int64_t slack = tolerance_ns - m;
        int64_t used;
        int rc = kernel_sleep_with_slack(deadline_ns, slack < 1 ? 1 : slack, &used);
        if (rc != MONOSTAMP_OK)
            return rc;
        monostamp__learned_observe(&margins, b, monostamp__os_monotonic_ns() - deadline_ns - used, 0);
        return MONOSTAMP_OK;
    }

    /* Tight: the kernel sleeps to T - (M - D), the CPU spins the rest. */
    int64_t kernel_deadline = deadline_ns - (m - tolerance_ns);
    if (kernel_deadline - now >= KERNEL_MIN_NS) {
        int64_t used;
        int rc = kernel_sleep_with_slack(kernel_deadline, 1, &used);
        if (rc != MONOSTAMP_OK)
            return rc;
        /* Only a sleep really made at 1 ns of slack measures the wake-up
         * cost itself (a real-time thread's slack is 0 and reads as -1). */
        monostamp__learned_observe(&margins, b, monostamp__os_monotonic_ns() - kernel_deadline, used <= 1);
    }
    spin_until(deadline_ns, m >= MARGIN_MAX_NS);
    return MONOSTAMP_OK;
}

int monostamp_sleep_for(int64_t duration_ns, int64_t tolerance_ns)
{
    if (duration_ns < 0 || tolerance_ns < 0)
        return MONOSTAMP_EINVAL;
    int64_t now = monostamp__os_monotonic_ns();
    if (duration_ns > INT64_MAX - now)
        return MONOSTAMP_ERANGE;
    return monostamp_sleep_until(now + duration_ns, tolerance_ns);
}
