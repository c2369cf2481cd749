/* test_clock.c: the policies on a manual clock, the lead bound, the counters
 * and every argument error, deterministically. */
#include <errno.h>
#include <limits.h>

#include "check.h"
#include "vectors.h"
#include "monostamp_host.h"

/* A manual clock at `start_ns` under `policy`, zone UTC. */
static int manual(monostamp_clock *clock, int policy, int64_t start_ns)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.policy = policy;
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.has_start_ns = 1;
    o.start_ns = start_ns;
    return monostamp_clock_init(clock, &o);
}

static int64_t next(monostamp_clock *clock)
{
    int64_t ns = INT64_MIN;
    if (monostamp_time_ns(clock, &ns) != 0)
        return INT64_MIN;
    return ns;
}

static void test_names_round_trip(void)
{
    for (int p = 0; p < 4; p++) {
        monostamp_policy back;
        CHECK_OK(monostamp_policy_from_name(monostamp_policy_name(p), &back));
        CHECK_EQ(back, p);
    }
    CHECK_STR_EQ(monostamp_policy_name(MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT),
                 "monotonicForceNanosecondIncrement");
    CHECK_STR_EQ(monostamp_policy_name(MONOSTAMP_ACCEPT_PLATFORM_TIME), "acceptPlatformTime");
    CHECK(monostamp_policy_name(4) == NULL);
    CHECK(monostamp_policy_name(-1) == NULL);
    CHECK_STR_EQ(monostamp_policy_constant(MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT),
                 "MONOTONIC_FORCE_NANOSECOND_INCREMENT");
    CHECK_STR_EQ(monostamp_policy_constant(MONOSTAMP_ACCEPT_PLATFORM_TIME),
                 "ACCEPT_PLATFORM_TIME");
    CHECK(monostamp_policy_constant(4) == NULL);
    CHECK(monostamp_policy_constant(-1) == NULL);
    monostamp_policy p;
    CHECK_RC(monostamp_policy_from_name("monotonic", &p), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_policy_from_name(NULL, &p), MONOSTAMP_EINVAL);
    monostamp_source s;
    CHECK_OK(monostamp_source_from_name("realtime_coarse", &s));
    CHECK_EQ(s, MONOSTAMP_SOURCE_REALTIME_COARSE);
    CHECK_RC(monostamp_source_from_name("REALTIME", &s), MONOSTAMP_EINVAL);
    CHECK(monostamp_source_name(3) == NULL);
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_ELEAD),
                 "stamp would lead its source by more than max_lead_ns");
    CHECK_STR_EQ(monostamp_strerror(12345), "unknown error");
}

static void test_accept_platform_time_returns_the_reading(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_ACCEPT_PLATFORM_TIME, 5000));
    CHECK_EQ(next(&c), 5000);
    CHECK_EQ(next(&c), 5000); /* frozen: repeats */
    CHECK_OK(monostamp_manual_advance(&c, -3000));
    CHECK_EQ(next(&c), 2000); /* stepped back: goes back */
    /* ... and the step is counted, as under every other policy. */
    monostamp_stats st;
    monostamp_clock_stats(&c, &st);
    CHECK_EQ(st.backward_steps, 1);
    CHECK_EQ(st.largest_backward_ns, 3000);
    CHECK_EQ(st.readings, 3);
    CHECK_OK(monostamp_manual_advance(&c, -500));
    CHECK_EQ(next(&c), 1500);
    monostamp_clock_stats(&c, &st);
    CHECK_EQ(st.backward_steps, 2);
    CHECK_EQ(st.largest_backward_ns, 3000);
    monostamp_clock_destroy(&c);
}

static void test_allow_duplicates_never_goes_back(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES, 5000));
    CHECK_EQ(next(&c), 5000);
    CHECK_EQ(next(&c), 5000); /* frozen: repeats */
    CHECK_OK(monostamp_manual_set(&c, 1000));
    CHECK_EQ(next(&c), 5000); /* stepped back: holds */
    CHECK_OK(monostamp_manual_set(&c, 7000));
    CHECK_EQ(next(&c), 7000);
    monostamp_stats st;
    monostamp_clock_stats(&c, &st);
    CHECK_EQ(st.readings, 4);
    CHECK_EQ(st.duplicates, 2);
    CHECK_EQ(st.forced_increments, 0);
    CHECK_EQ(st.backward_steps, 1);
    CHECK_EQ(st.largest_backward_ns, 4000);
    monostamp_clock_destroy(&c);
}

static void test_nanosecond_increment_is_strict(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 5000));
    CHECK_EQ(next(&c), 5000);
    CHECK_EQ(next(&c), 5001); /* frozen */
    CHECK_EQ(next(&c), 5002);
    CHECK_OK(monostamp_manual_set(&c, 100));
    CHECK_EQ(next(&c), 5003); /* stepped back */
    monostamp_stats mid;
    monostamp_clock_stats(&c, &mid);
    CHECK_EQ(mid.lead_ns, 4903); /* the current lead, while it lasts */
    CHECK_EQ(mid.max_lead_ns, 4903);
    CHECK_OK(monostamp_manual_set(&c, 9000));
    CHECK_EQ(next(&c), 9000); /* caught up: the reading again */
    monostamp_stats st;
    monostamp_clock_stats(&c, &st);
    CHECK_EQ(st.readings, 5);
    CHECK_EQ(st.forced_increments, 3);
    CHECK_EQ(st.backward_steps, 1);
    CHECK_EQ(st.largest_backward_ns, 4900);
    CHECK_EQ(st.max_lead_ns, 4903);
    CHECK_EQ(st.lead_ns, 0);
    monostamp_clock_destroy(&c);
}

/* Splits a comma-separated list of int64 into `out`; returns how many, or
 * -1 past `max` or at a malformed number. */
static int int64_list(const char *s, int64_t *out, int max)
{
    int n = 0;
    for (;;) {
        char *end;
        if (n == max) return -1;
        errno = 0;
        out[n++] = strtoll(s, &end, 10);
        if (end == s || errno != 0 || (*end != ',' && *end != '\0')) return -1;
        if (*end == '\0') return n;
        s = end + 1;
    }
}

/* tests/vectors/policies.tsv: each case on a fresh manual clock started at
 * its first reading, the source set to each reading before each stamp. */
static void test_policies_follow_the_shared_vectors(void)
{
    FILE *f = open_vectors("policies.tsv");
    char line[1024];
    int cases = 0, lineno = 0;
    int seen[4] = {0, 0, 0, 0};
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        char *fl[5];
        int64_t readings[16], stamps[16];
        monostamp_policy policy;
        monostamp_clock c;
        int n;
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (split(line, fl, 5) != 4 || monostamp_policy_from_name(fl[0], &policy) != 0 ||
            (n = int64_list(fl[1], readings, 16)) < 1 || int64_list(fl[2], stamps, 16) != n) {
            fprintf(stderr, "  policies.tsv:%d: bad line\n", lineno);
            CHECK(0);
        }
        CHECK_OK(manual(&c, (int)policy, readings[0]));
        for (int i = 0; i < n; i++) {
            int64_t ns = INT64_MIN;
            CHECK_OK(monostamp_manual_set(&c, readings[i]));
            CHECK_OK(monostamp_time_ns(&c, &ns));
            if (ns != stamps[i])
                fprintf(stderr, "  policies.tsv:%d: %s, stamp %d\n", lineno, fl[3], i + 1);
            CHECK_EQ(ns, stamps[i]);
        }
        monostamp_clock_destroy(&c);
        seen[policy]++;
        cases++;
    }
    fclose(f);
    CHECK_GT(cases, 20);
    for (int p = 0; p < 4; p++) CHECK_GT(seen[p], 3); /* every policy, several times */
}

static void test_microsecond_after_a_nanosecond_stamp_rounds_up(void)
{
    /* Mixed policies on one state: the µs policy still gives whole µs. */
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 4321));
    CHECK_EQ(next(&c), 4321);
    CHECK_OK(monostamp_clock_set_policy(&c, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT));
    CHECK_EQ(next(&c), 5000);
    monostamp_clock_destroy(&c);
}

static void test_policy_change_takes_effect_at_once(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES, 10));
    CHECK_EQ(next(&c), 10);
    CHECK_EQ(next(&c), 10);
    CHECK_OK(monostamp_clock_set_policy(&c, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT));
    CHECK_EQ(monostamp_clock_policy(&c), MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT);
    CHECK_EQ(next(&c), 11);
    CHECK_RC(monostamp_clock_set_policy(&c, 9), MONOSTAMP_EINVAL);
    CHECK_EQ(monostamp_clock_policy(&c), MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT);
    monostamp_clock_destroy(&c);
}

static void test_overflow_is_an_error_and_keeps_state(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, INT64_MAX));
    CHECK_EQ(next(&c), INT64_MAX);
    int64_t ns = 42;
    CHECK_RC(monostamp_time_ns(&c, &ns), MONOSTAMP_ERANGE);
    CHECK_EQ(ns, 42);
    CHECK_RC(monostamp_manual_advance(&c, 1), MONOSTAMP_ERANGE);
    CHECK_OK(monostamp_clock_set_policy(&c, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT));
    CHECK_RC(monostamp_time_ns(&c, &ns), MONOSTAMP_ERANGE);
    CHECK_OK(monostamp_manual_set(&c, INT64_MIN));
    CHECK_RC(monostamp_manual_advance(&c, -1), MONOSTAMP_ERANGE);
    monostamp_clock_destroy(&c);
}

static void test_lead_bound_error_leaves_state(void)
{
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.max_lead_ns = 2;
    o.on_lead = MONOSTAMP_ON_LEAD_ERROR;
    CHECK_OK(monostamp_clock_init(&c, &o));
    CHECK_EQ(next(&c), 0);
    CHECK_EQ(next(&c), 1);
    CHECK_EQ(next(&c), 2);
    int64_t ns = 99;
    CHECK_RC(monostamp_time_ns(&c, &ns), MONOSTAMP_ELEAD);
    CHECK_EQ(ns, 99);
    CHECK_RC(monostamp_time_ns(&c, &ns), MONOSTAMP_ELEAD);
    CHECK_OK(monostamp_manual_advance(&c, 1)); /* reading 1: lead 2 again allowed */
    CHECK_EQ(next(&c), 3);
    monostamp_stats st;
    monostamp_clock_stats(&c, &st);
    CHECK_EQ(st.lead_errors, 2);
    CHECK_EQ(st.max_lead_ns, 2);
    monostamp_clock_destroy(&c);
}

static void test_lead_bound_wait_on_manual_is_an_error(void)
{
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.max_lead_ns = 1;
    o.on_lead = MONOSTAMP_ON_LEAD_WAIT;
    CHECK_OK(monostamp_clock_init(&c, &o));
    CHECK_EQ(next(&c), 0);
    CHECK_EQ(next(&c), 1);
    int64_t ns;
    CHECK_RC(monostamp_time_ns(&c, &ns), MONOSTAMP_ELEAD);
    monostamp_clock_destroy(&c);
}

static void test_lead_bound_wait_on_realtime_waits(void)
{
    /* The µs policy at full speed runs ahead of a coarse source; a 20 µs
     * bound must hold every stamp within 20 µs of real time: of a precise
     * reading taken just after it (the reference is real time, which a
     * coarse reading trails by up to a tick). */
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.policy = MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT;
    o.source = MONOSTAMP_SOURCE_REALTIME_COARSE; /* ~4 ms steps: forces leads */
    o.zone = "UTC";
    o.max_lead_ns = 20000;
    CHECK_OK(monostamp_clock_init(&c, &o));
    int64_t previous = INT64_MIN;
    for (int i = 0; i < 200; i++) {
        int64_t ns, after;
        CHECK_OK(monostamp_time_ns(&c, &ns));
        CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &after));
        CHECK_GT(ns, previous);
        CHECK_LE(ns - after, 20000);
        previous = ns;
    }
    monostamp_stats st;
    monostamp_clock_stats(&c, &st);
    CHECK_GT(st.lead_waits, 0);
    /* The lead over the coarse reading itself: the bound and a tick. */
    monostamp_clock_info info;
    CHECK_OK(monostamp_clock_info_get(MONOSTAMP_SOURCE_REALTIME_COARSE, &info));
    CHECK_LE(st.max_lead_ns, 20000 + info.resolution_ns);
    monostamp_clock_destroy(&c);
}

static void test_bad_options_are_refused(void)
{
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.policy = 4;
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_EINVAL);
    monostamp_options_init(&o);
    o.source = -1;
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_EINVAL);
    monostamp_options_init(&o);
    o.on_lead = 2;
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_EINVAL);
    monostamp_options_init(&o);
    o.max_lead_ns = -1;
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_EINVAL);
    monostamp_options_init(&o);
    o.has_start_ns = 1; /* start_ns on realtime */
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_EINVAL);
    monostamp_options_init(&o);
    o.zone = "No/Such_Zone";
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_ENOZONE);
    CHECK_RC(monostamp_clock_init(NULL, NULL), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_time_ns(NULL, NULL), MONOSTAMP_EINVAL);
}

static void test_manual_operations_need_a_manual_clock(void)
{
    monostamp_clock c;
    CHECK_OK(monostamp_clock_init(&c, NULL));
    CHECK_RC(monostamp_manual_set(&c, 1), MONOSTAMP_ENOTSUP);
    CHECK_RC(monostamp_manual_advance(&c, 1), MONOSTAMP_ENOTSUP);
    CHECK_EQ(monostamp_clock_source(&c), MONOSTAMP_SOURCE_REALTIME);
    CHECK_EQ(monostamp_clock_is_shared(&c), 0);
    monostamp_clock_destroy(&c);
    monostamp_clock_destroy(&c); /* twice is harmless */
}

static void test_now_carries_the_zone_offset(void)
{
    monostamp_clock c;
    CHECK_OK(manual(&c, MONOSTAMP_DEFAULT_POLICY, INT64_C(1700000000123456789)));
    monostamp_stamp s;
    CHECK_OK(monostamp_now(&c, &s));
    CHECK_EQ(s.utc_ns, INT64_C(1700000000123456789));
    CHECK_EQ(s.offset_s, 0);
    CHECK_RC(monostamp_now(&c, NULL), MONOSTAMP_EINVAL);
    monostamp_clock_destroy(&c);
}

static void test_realtime_sources_read_the_wall_clock(void)
{
    for (int source = 0; source < 2; source++) {
        monostamp_clock_info info;
        CHECK_OK(monostamp_clock_info_get(source, &info));
        CHECK_STR_EQ(info.name, monostamp_source_name(source));
        CHECK_GT(info.resolution_ns, 0);
        CHECK_EQ(info.adjustable, 1);
        int64_t ns;
        CHECK_OK(monostamp_source_read(source, &ns));
        CHECK_GT(ns, INT64_C(1600000000) * 1000000000); /* after 2020 */
    }
    monostamp_clock_info info;
    CHECK_OK(monostamp_clock_info_get(MONOSTAMP_SOURCE_MANUAL, &info));
    CHECK_STR_EQ(info.name, "manual");
    CHECK_RC(monostamp_clock_info_get(7, &info), MONOSTAMP_EINVAL);
    int64_t ns;
    CHECK_RC(monostamp_source_read(MONOSTAMP_SOURCE_MANUAL, &ns), MONOSTAMP_ENOTSUP);
}

static void test_default_clock_policy_like_squeak(void)
{
    CHECK_EQ(monostamp_get_policy(), MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT);
    CHECK_RC(monostamp_set_policy(-1), MONOSTAMP_EINVAL);
    CHECK_OK(monostamp_set_policy(MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES));
    CHECK_EQ(monostamp_get_policy(), MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES);
    CHECK_OK(monostamp_set_policy(MONOSTAMP_DEFAULT_POLICY));
    int64_t a, b;
    monostamp_stamp s;
    CHECK_OK(monostamp_default_time_ns(&a));
    CHECK_OK(monostamp_default_now(&s));
    CHECK_OK(monostamp_default_time_ns(&b));
    CHECK_LT(a, s.utc_ns);
    CHECK_LT(s.utc_ns, b);
}

/* A clock made with the defaults is bounded: one call cannot move its
 * state (or a shared file's, for every joiner) centuries ahead. */
static void test_default_bound_refuses_a_huge_block(void)
{
    monostamp_clock clock;
    monostamp_options o;
    int64_t first = 7, step = 7, before, after, now;
    monostamp_options_init(&o);
    CHECK_EQ(o.max_lead_ns, MONOSTAMP_DEFAULT_MAX_LEAD_NS);
    CHECK_OK(monostamp_clock_init(&clock, NULL));
    CHECK_EQ(monostamp_clock_max_lead_ns(&clock), MONOSTAMP_DEFAULT_MAX_LEAD_NS);
    CHECK_OK(monostamp_time_ns(&clock, &before));
    CHECK_RC(monostamp_clock_take(&clock, INT64_C(1) << 62, &first, &step), MONOSTAMP_ELEAD);
    CHECK_EQ(first, 7);
    CHECK_EQ(step, 7);
    /* The state is where it was: the next stamp follows the wall clock. */
    CHECK_OK(monostamp_time_ns(&clock, &after));
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &now));
    CHECK_GT(after, before);
    CHECK_LE(after, now);
    monostamp_clock_destroy(&clock);
    /* 0, asked for, is still "no bound". */
    o.max_lead_ns = 0;
    o.policy = MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT;
    CHECK_OK(monostamp_clock_init(&clock, &o));
    CHECK_OK(monostamp_clock_take(&clock, INT64_C(1) << 40, &first, &step));
    monostamp_clock_destroy(&clock);
}

/* Every call on a destroyed (not freed) clock is refused, not served from
 * what is left of it. */
static void test_a_destroyed_clock_refuses_every_call(void)
{
    monostamp_clock clock;
    monostamp_stamp stamp;
    int64_t ns = 42, step = 42;
    for (int source = MONOSTAMP_SOURCE_REALTIME; source <= MONOSTAMP_SOURCE_MANUAL; source++) {
        for (int policy = 0; policy < 4; policy++) {
            monostamp_options o;
            monostamp_options_init(&o);
            o.source = source;
            o.policy = policy;
            CHECK_OK(monostamp_clock_init(&clock, &o));
            CHECK_OK(monostamp_time_ns(&clock, &ns));
            monostamp_clock_destroy(&clock);
            ns = 42;
            CHECK_RC(monostamp_time_ns(&clock, &ns), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_time_us(&clock, &ns), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_now(&clock, &stamp), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_now_us(&clock, &stamp), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_clock_take(&clock, 3, &ns, &step), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_clock_set_policy(&clock, policy), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_manual_set(&clock, 5), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_manual_advance(&clock, 5), MONOSTAMP_EINVAL);
            CHECK_RC(monostamp_clock_set_waiter(&clock, NULL), MONOSTAMP_EINVAL);
            CHECK_EQ(ns, 42);
            CHECK_EQ(step, 42);
            monostamp_clock_destroy(&clock); /* twice in a row is safe */
            /* And the storage can be made into a clock again. */
            CHECK_OK(monostamp_clock_init(&clock, &o));
            CHECK_OK(monostamp_time_ns(&clock, &ns));
            monostamp_clock_destroy(&clock);
        }
    }
}

int main(void)
{
    RUN(test_names_round_trip);
    RUN(test_default_bound_refuses_a_huge_block);
    RUN(test_a_destroyed_clock_refuses_every_call);
    RUN(test_accept_platform_time_returns_the_reading);
    RUN(test_allow_duplicates_never_goes_back);
    RUN(test_nanosecond_increment_is_strict);
    RUN(test_policies_follow_the_shared_vectors);
    RUN(test_microsecond_after_a_nanosecond_stamp_rounds_up);
    RUN(test_policy_change_takes_effect_at_once);
    RUN(test_overflow_is_an_error_and_keeps_state);
    RUN(test_lead_bound_error_leaves_state);
    RUN(test_lead_bound_wait_on_manual_is_an_error);
    RUN(test_lead_bound_wait_on_realtime_waits);
    RUN(test_bad_options_are_refused);
    RUN(test_manual_operations_need_a_manual_clock);
    RUN(test_now_carries_the_zone_offset);
    RUN(test_realtime_sources_read_the_wall_clock);
    RUN(test_default_clock_policy_like_squeak);
    return check_summary();
}
