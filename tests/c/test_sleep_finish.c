/*
 * test_sleep_finish.c: monostamp_sleep_begin / monostamp_sleep_step, the
 * plan the bindings' sleeps follow (csrc/sleep_finish.c).  The plan is a
 * function of the readings a host passes and the learned leads, so every
 * test here feeds made-up readings: nothing depends on the machine's
 * timing.  One real sleep at the end drives a plan as a binding does.
 */
#include <pthread.h> /* winpthreads under mingw-w64 */
#include <stdint.h>

#include "check.h"
#include "monostamp_host.h"

#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define LEAD_MIN MONOSTAMP_SLEEP_LEAD_MIN_NS
#define LEAD_MAX MONOSTAMP_SLEEP_LEAD_MAX_NS

/* The learning's test hooks, defined in csrc/sleep_finish.c. */
int64_t monostamp__sleep_lead_ns(int64_t length_ns, int *out_seen);
void monostamp__sleep_lead_set(int64_t length_ns, int64_t lead);
void monostamp__sleep_lead_reset(void);

static int64_t lead(int64_t length_ns)
{
    return monostamp__sleep_lead_ns(length_ns, NULL);
}

static int seen(int64_t length_ns)
{
    int s;
    (void)monostamp__sleep_lead_ns(length_ns, &s);
    return s;
}

/* A plan begun at `now` for T = now + left, and the nap it ends with
 * observed `late` after its target: the action that observation gives. */
static int nap_then_observe(int64_t left, int64_t tolerance, int64_t late)
{
    monostamp_sleep_plan p;
    int64_t now = 1000 * MS;
    if (monostamp_sleep_begin(&p, now + left, tolerance, now, 1) != MONOSTAMP_SLEEP_NAP ||
        !p.last_nap)
        return -1;
    return monostamp_sleep_step(&p, p.until_ns + p.until_tolerance_ns + late);
}

static void test_past_and_short_deadlines(void)
{
    monostamp__sleep_lead_reset();
    monostamp_sleep_plan p;
    CHECK_EQ(monostamp_sleep_begin(&p, INT64_MIN, 0, 5, 1), MONOSTAMP_SLEEP_DONE);
    CHECK_EQ(monostamp_sleep_begin(&p, 5, 0, 5, 1), MONOSTAMP_SLEEP_DONE);
    CHECK_EQ(monostamp_sleep_begin(&p, 5, 0, 5, 0), MONOSTAMP_SLEEP_DONE);
    CHECK_EQ(monostamp_sleep_step(&p, 6), MONOSTAMP_SLEEP_DONE); /* no nap to follow */
    /* Shorter than any lead: the spin alone, whatever the tolerance. */
    CHECK_EQ(monostamp_sleep_begin(&p, 100 + LEAD_MIN, 0, 100, 1), MONOSTAMP_SLEEP_SPIN);
    CHECK_EQ(monostamp_sleep_begin(&p, 100 + LEAD_MIN, MS, 100, 1), MONOSTAMP_SLEEP_SPIN);
    CHECK_EQ(p.deadline_ns, 100 + LEAD_MIN);
    /* Longer than the minimum but within the band's lead: the spin too. */
    monostamp__sleep_lead_set(20 * US, 40 * US);
    CHECK_EQ(monostamp_sleep_begin(&p, 100 + 20 * US, 0, 100, 1), MONOSTAMP_SLEEP_SPIN);
    CHECK_EQ(monostamp_sleep_begin(&p, 100 + 50 * US, 0, 100, 1), MONOSTAMP_SLEEP_NAP);
}

static void test_tight_tolerance_naps_to_the_lead_then_warms(void)
{
    monostamp__sleep_lead_reset();
    monostamp__sleep_lead_set(3 * MS, 200 * US);
    monostamp_sleep_plan p;
    int64_t now = 7 * MS, deadline = now + 3 * MS;
    CHECK_EQ(monostamp_sleep_begin(&p, deadline, 10 * US, now, 1), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, deadline - 200 * US);
    CHECK_EQ(p.until_tolerance_ns, 0);
    CHECK(p.last_nap);
    CHECK_EQ(monostamp_sleep_step(&p, deadline - 190 * US), MONOSTAMP_SLEEP_WARM);
    CHECK_EQ(p.deadline_ns, deadline);
    CHECK_EQ(monostamp_sleep_step(&p, deadline), MONOSTAMP_SLEEP_DONE); /* over */
}

static void test_a_tolerance_that_covers_the_lead_is_the_cores_alone(void)
{
    monostamp__sleep_lead_reset();
    int64_t l = lead(3 * MS);
    monostamp_sleep_plan p;
    int64_t now = 7 * MS, deadline = now + 3 * MS;
    CHECK_EQ(monostamp_sleep_begin(&p, deadline, l + 7 * US, now, 1), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, deadline);
    CHECK_EQ(p.until_tolerance_ns, 7 * US);
    CHECK_EQ(monostamp_sleep_step(&p, deadline + 3 * US), MONOSTAMP_SLEEP_DONE);
    /* Late beyond the allowance: a lower bound, which raised the lead. */
    CHECK_EQ(monostamp_sleep_begin(&p, deadline, l + 7 * US, now, 1), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(monostamp_sleep_step(&p, deadline + 7 * US + 2 * l), MONOSTAMP_SLEEP_DONE);
    CHECK_EQ(lead(3 * MS), 2 * l + 2 * l / 4 + 2 * US);
}

static void test_naps_of_50_ms_the_callers_tolerance_on_the_last(void)
{
    monostamp__sleep_lead_reset();
    int64_t l = lead(120 * MS);
    monostamp_sleep_plan p;
    int64_t now = 9 * MS, deadline = now + 120 * MS;
    CHECK_EQ(monostamp_sleep_begin(&p, deadline, 0, now, 1), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, now + 50 * MS);
    CHECK_EQ(p.until_tolerance_ns, 5 * MS);
    CHECK(!p.last_nap);
    now += 50 * MS + 3; /* each nap from the reading after the last */
    CHECK_EQ(monostamp_sleep_step(&p, now), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, now + 50 * MS);
    CHECK(!p.last_nap);
    CHECK_EQ(monostamp_sleep_step(&p, now + 50 * MS), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, deadline - l);
    CHECK_EQ(p.until_tolerance_ns, 0);
    CHECK(p.last_nap);
    /* The band is the length at the start, not what the last nap had left. */
    CHECK_EQ(monostamp_sleep_step(&p, deadline - l + 10 * US), MONOSTAMP_SLEEP_WARM);
    CHECK(seen(120 * MS) && !seen(15 * MS));
}

static void test_the_core_alone_has_no_lead(void)
{
    monostamp__sleep_lead_reset();
    monostamp_sleep_plan p;
    int64_t now = 9 * MS, deadline = now + 70 * MS;
    CHECK_EQ(monostamp_sleep_begin(&p, deadline, 0, now, 0), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, now + 50 * MS);
    CHECK_EQ(monostamp_sleep_step(&p, now + 50 * MS), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, deadline);
    CHECK_EQ(p.until_tolerance_ns, 0);
    CHECK(p.last_nap);
    CHECK_EQ(monostamp_sleep_step(&p, deadline + 500 * US), MONOSTAMP_SLEEP_DONE);
    CHECK(!seen(70 * MS)); /* nothing learned */
    CHECK_EQ(monostamp_sleep_begin(&p, now + 10 * US, 0, now, 0), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(p.until_ns, now + 10 * US);
}

static void test_bands_by_powers_of_ten(void)
{
    static const int64_t lengths[] = {9999, 10000, 99999, 100000, 999999, MS, 10 * MS,
                                      100 * MS, 1000 * MS, INT64_C(1000000000000)};
    static const int band[] = {0, 1, 1, 2, 2, 3, 4, 5, 6, 6};
    for (int i = 0; i < 10; i++) {
        monostamp__sleep_lead_reset();
        monostamp__sleep_lead_set(lengths[i], LEAD_MAX);
        for (int j = 0; j < 10; j++)
            if (band[j] != band[i])
                CHECK_EQ(seen(lengths[j]), 0);
            else
                CHECK_EQ(lead(lengths[j]), LEAD_MAX);
    }
}

static void test_the_lead_rises_at_once_by_at_most_4x_and_falls_slowly(void)
{
    monostamp__sleep_lead_reset();
    int64_t start = lead(3 * MS);
    CHECK_EQ(nap_then_observe(3 * MS, 0, 40 * US), MONOSTAMP_SLEEP_WARM); /* wants 40 + 10 + 2 */
    CHECK_EQ(lead(3 * MS), start > 52 * US ? start : 52 * US);
    (void)nap_then_observe(3 * MS, 0, 1000 * MS); /* a preemption: clamped, at most 4x */
    int64_t high = lead(3 * MS);
    CHECK_EQ(high, 4 * 52 * US < LEAD_MAX ? 4 * 52 * US : LEAD_MAX);
    (void)nap_then_observe(3 * MS, 0, 0);
    CHECK_EQ(lead(3 * MS), high - (high - LEAD_MIN + 31) / 32);
    int64_t lowered = lead(3 * MS);
    /* A lower bound (the tolerance covered the lead): never lowers. */
    CHECK_EQ(nap_then_observe(3 * MS, MS, 0), MONOSTAMP_SLEEP_DONE);
    CHECK_EQ(lead(3 * MS), lowered);
    for (int i = 0; i < 2000; i++)
        (void)nap_then_observe(3 * MS, 0, 0);
    CHECK_EQ(lead(3 * MS), LEAD_MIN); /* the floor */
    /* A reading before the target counts as on time, not as negative. */
    (void)nap_then_observe(3 * MS, 0, -5 * MS);
    CHECK_EQ(lead(3 * MS), LEAD_MIN);
}

static void test_an_unseen_band_starts_from_a_longer_lead_below_it(void)
{
    monostamp__sleep_lead_reset();
    int64_t own = lead(30 * MS);
    CHECK(!seen(30 * MS));
    monostamp__sleep_lead_set(3 * MS, own + 50 * US);
    CHECK_EQ(lead(30 * MS), own + 50 * US);
    monostamp__sleep_lead_set(3 * MS, LEAD_MIN);
    CHECK_EQ(lead(30 * MS), own); /* its own start, when higher */
    (void)nap_then_observe(30 * MS, 0, 0); /* its first observation starts from that */
    CHECK_EQ(lead(30 * MS), own - (own - LEAD_MIN + 31) / 32);
    CHECK(seen(30 * MS));
}

static void test_hostile_readings_are_safe(void)
{
    monostamp__sleep_lead_reset();
    monostamp_sleep_plan p;
    /* Readings no clock gives, as a binding's private hook could pass. */
    CHECK_EQ(monostamp_sleep_begin(&p, INT64_MAX, 0, INT64_MIN, 1), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(monostamp_sleep_step(&p, INT64_MIN), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(monostamp_sleep_step(&p, INT64_MAX), MONOSTAMP_SLEEP_NAP);
    CHECK(p.last_nap);
    CHECK_EQ(monostamp_sleep_step(&p, INT64_MAX), MONOSTAMP_SLEEP_WARM);
    CHECK_EQ(lead(INT64_MAX), LEAD_MAX);
    CHECK_EQ(monostamp_sleep_begin(&p, INT64_MIN + 1, INT64_MAX, INT64_MIN, 1),
             MONOSTAMP_SLEEP_SPIN);
    CHECK_EQ(monostamp_sleep_begin(&p, 0, -5, INT64_MIN, 1), MONOSTAMP_SLEEP_NAP);
    CHECK_EQ(monostamp_sleep_step(&p, -1), MONOSTAMP_SLEEP_NAP);
}

/* Threads learn at once through one table: relaxed atomics (TSan). */
static void *learner(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2000; i++)
        (void)nap_then_observe((i % 3 + 1) * MS, i % 2 ? MS : 0, (i % 7) * 10 * US);
    return NULL;
}

static void test_threads_learn_together(void)
{
    monostamp__sleep_lead_reset();
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, learner, NULL), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK(lead(2 * MS) >= LEAD_MIN && lead(2 * MS) <= LEAD_MAX);
}

/* A plan driven as a binding drives it, with real naps: never early. */
static void test_a_driven_plan_is_never_early(void)
{
    static const int64_t lengths[] = {1, 14 * US, 16 * US, 50 * US, 300 * US, 3 * MS};
    for (int i = 0; i < 6; i++)
        for (int64_t tol = 0; tol <= 300 * US; tol += 150 * US) {
            monostamp_sleep_plan p;
            int64_t deadline = monostamp_monotonic_ns() + lengths[i];
            int what = monostamp_sleep_begin(&p, deadline, tol, monostamp_monotonic_ns(), 1);
            while (what == MONOSTAMP_SLEEP_NAP) {
                CHECK_EQ(monostamp_sleep_until(p.until_ns, p.until_tolerance_ns), MONOSTAMP_OK);
                what = monostamp_sleep_step(&p, monostamp_monotonic_ns());
            }
            if (what != MONOSTAMP_SLEEP_DONE)
                while (monostamp_monotonic_ns() < deadline) {
                }
            CHECK_GE(monostamp_monotonic_ns(), deadline);
        }
}

int main(void)
{
    RUN(test_past_and_short_deadlines);
    RUN(test_tight_tolerance_naps_to_the_lead_then_warms);
    RUN(test_a_tolerance_that_covers_the_lead_is_the_cores_alone);
    RUN(test_naps_of_50_ms_the_callers_tolerance_on_the_last);
    RUN(test_the_core_alone_has_no_lead);
    RUN(test_bands_by_powers_of_ten);
    RUN(test_the_lead_rises_at_once_by_at_most_4x_and_falls_slowly);
    RUN(test_an_unseen_band_starts_from_a_longer_lead_below_it);
    RUN(test_hostile_readings_are_safe);
    RUN(test_threads_learn_together);
    RUN(test_a_driven_plan_is_never_early);
    return check_summary();
}
