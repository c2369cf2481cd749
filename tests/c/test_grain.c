/* test_grain.c: stamps drawn at whole-microsecond grain from the same
 * state as ns stamps (monostamp_time_us, monostamp_now_us), per policy.
 * Europe/Berlin comes from the pinned copy (pinned_zones.h). */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "monostamp.h"
#include "pinned_zones.h"

static int manual(monostamp_clock *clock, int policy, int64_t start_ns)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.policy = policy;
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "Europe/Berlin";
    o.has_start_ns = 1;
    o.start_ns = start_ns;
    return monostamp_clock_init(clock, &o);
}

static int64_t us(monostamp_clock *clock)
{
    int64_t ns = INT64_MIN;
    return monostamp_time_us(clock, &ns) == 0 ? ns : INT64_MIN;
}

static int64_t ns(monostamp_clock *clock)
{
    int64_t v = INT64_MIN;
    return monostamp_time_ns(clock, &v) == 0 ? v : INT64_MIN;
}

static void test_frozen_ns_clock_gives_distinct_whole_us(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 5000500));
    CHECK_EQ(us(&c), 5000000); /* the reading floored */
    CHECK_EQ(us(&c), 5001000); /* frozen: the next whole µs */
    CHECK_EQ(us(&c), 5002000);
    /* ns and µs stamps are one sequence. */
    CHECK_EQ(ns(&c), 5002001);
    CHECK_EQ(us(&c), 5003000);
    CHECK_EQ(ns(&c), 5003001);
    /* The policy itself is unchanged. */
    CHECK_EQ(monostamp_clock_policy(&c), MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT);
    monostamp_stats st;
    monostamp_clock_stats(&c, &st);
    CHECK_EQ(st.readings, 6);
    CHECK_EQ(st.forced_increments, 5);
    monostamp_clock_destroy(&c);
}

static void test_now_us_carries_the_offset(void)
{
    monostamp_clock c;
    monostamp_stamp s;
    /* 2026-07-01T00:00:00.000000999Z: summer time in Berlin. */
    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                    INT64_C(1782864000000000999)));
    CHECK_OK(monostamp_now_us(&c, &s));
    CHECK_EQ(s.utc_ns, INT64_C(1782864000000000000));
    CHECK_EQ(s.offset_s, 7200);
    CHECK_OK(monostamp_now_us(&c, &s));
    CHECK_EQ(s.utc_ns, INT64_C(1782864000000001000));
    monostamp_clock_destroy(&c);
}

static void test_other_policies_floor_their_stamp(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_ACCEPT_PLATFORM_TIME, 7999));
    CHECK_EQ(us(&c), 7000);
    CHECK_EQ(us(&c), 7000); /* as the policy says: may repeat */
    CHECK_OK(monostamp_manual_set(&c, -1));
    CHECK_EQ(us(&c), -1000); /* floors go down before 1970 too */
    monostamp_clock_destroy(&c);

    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES, 9500));
    CHECK_EQ(ns(&c), 9500);
    CHECK_EQ(us(&c), 9000);
    CHECK_OK(monostamp_manual_set(&c, 2000)); /* a step back: held at last */
    CHECK_EQ(us(&c), 9000);
    monostamp_clock_destroy(&c);

    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT, 1500));
    CHECK_EQ(us(&c), 1000);
    CHECK_EQ(ns(&c), 2000); /* the µs policy's ns stamps are whole µs already */
    CHECK_EQ(us(&c), 3000);
    monostamp_clock_destroy(&c);
}

static void test_lead_bound_and_overflow_hold_at_us_grain(void)
{
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.max_lead_ns = 2500;
    o.on_lead = MONOSTAMP_ON_LEAD_ERROR;
    CHECK_OK(monostamp_clock_init(&c, &o));
    CHECK_EQ(us(&c), 0);
    CHECK_EQ(us(&c), 1000);
    CHECK_EQ(us(&c), 2000);
    int64_t v = 42;
    CHECK_RC(monostamp_time_us(&c, &v), MONOSTAMP_ELEAD); /* 3000 leads by 3000 */
    CHECK_EQ(v, 42);
    CHECK_EQ(ns(&c), 2001); /* the state was left as it was */
    monostamp_clock_destroy(&c);

    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, INT64_MAX - 500));
    CHECK_EQ(us(&c), INT64_MAX - 807); /* floor_us(INT64_MAX - 500) */
    CHECK_RC(monostamp_time_us(&c, &v), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_time_us(NULL, &v), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_now_us(&c, NULL), MONOSTAMP_EINVAL);
    monostamp_clock_destroy(&c);
}

enum { THREADS = 4, EACH = 20000 };
static monostamp_clock shared_clock;
static int64_t drawn[THREADS][EACH];

/* Every drawing thread starts at once, so that they race for certain. */
static pthread_barrier_t draw_start;

static void *draw(void *arg)
{
    int64_t *out = arg;
    pthread_barrier_wait(&draw_start);
    for (int i = 0; i < EACH; i++) {
        /* Mixed grains, as patched time.time() and time_ns() would draw. */
        if (i % 3 == 0)
            monostamp_time_ns(&shared_clock, &out[i]);
        else
            monostamp_time_us(&shared_clock, &out[i]);
    }
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_threads_mixing_grains_never_repeat(void)
{
    pthread_t t[THREADS];
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_REALTIME_COARSE; /* many stamps per tick */
    CHECK_OK(monostamp_clock_init(&shared_clock, &o));
    CHECK_EQ(pthread_barrier_init(&draw_start, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, draw, drawn[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&draw_start);
    for (int i = 0; i < THREADS; i++)
        for (int j = 1; j < EACH; j++)
            if (drawn[i][j] <= drawn[i][j - 1])
                CHECK_GT(drawn[i][j], drawn[i][j - 1]);
    int64_t *all = &drawn[0][0];
    qsort(all, THREADS * EACH, sizeof *all, by_value);
    for (int k = 1; k < THREADS * EACH; k++)
        if (all[k] == all[k - 1])
            CHECK_NE(all[k], all[k - 1]);
    monostamp_clock_destroy(&shared_clock);
}

int main(void)
{
    if (pin_zones() != 0) return 1;
    RUN(test_frozen_ns_clock_gives_distinct_whole_us);
    RUN(test_now_us_carries_the_offset);
    RUN(test_other_policies_floor_their_stamp);
    RUN(test_lead_bound_and_overflow_hold_at_us_grain);
    RUN(test_threads_mixing_grains_never_repeat);
    return check_summary();
}
