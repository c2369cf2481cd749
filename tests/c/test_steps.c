/* test_steps.c: steps of the source, back and forward, of any size, under
 * every policy: no call fails or waits for them, the policies define each
 * stamp, the counters count the step, and the lead bound still holds the
 * clock's own draws, counted from where the clock stands.  Also a state
 * file that starts at the wall clock, and a draw's own lead bound. */
#include <string.h>

#include "check.h"
#include "monostamp_host.h"

#define SECOND INT64_C(1000000000)
#define HOUR (3600 * SECOND)
#define YEAR (365 * 24 * HOUR)
#define T0 INT64_C(1774745999123456789)

static int manual(monostamp_clock *clock, int policy, int64_t start_ns)
{
    monostamp_options o;
    monostamp_options_init(&o); /* the default 1 s bound, on_lead "wait" */
    o.policy = policy;
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.has_start_ns = 1;
    o.start_ns = start_ns;
    return monostamp_clock_init(clock, &o);
}

/* What each policy hands out for a reading `step` below a clock whose last
 * stamp is `last`. */
static int64_t expected(int policy, int64_t last, int64_t reading)
{
    switch (policy) {
    case MONOSTAMP_ACCEPT_PLATFORM_TIME: return reading;
    case MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES: return last;
    case MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT: return last - last % 1000 + 1000;
    default: return last + 1;
    }
}

static void test_a_step_back_of_any_size_goes_through_the_policy(void)
{
    const int64_t steps[] = {SECOND, 10 * SECOND, HOUR, YEAR};
    for (int policy = 0; policy < 4; policy++) {
        for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
            monostamp_clock c;
            int64_t last, ns;
            CHECK_OK(manual(&c, policy, T0));
            CHECK_OK(monostamp_time_ns(&c, &last));
            CHECK_OK(monostamp_manual_set(&c, T0 - steps[i]));
            /* A few stamps at the stepped reading: each the policy's. */
            for (int k = 0; k < 3; k++) {
                CHECK_OK(monostamp_time_ns(&c, &ns));
                CHECK_EQ(ns, expected(policy, last, T0 - steps[i]));
                if (policy != MONOSTAMP_ACCEPT_PLATFORM_TIME)
                    last = ns;
            }
            monostamp_stats st;
            monostamp_clock_stats(&c, &st);
            CHECK_EQ(st.backward_steps, 1);
            /* From the previous stamp, which the µs policy floored. */
            CHECK_LE(st.largest_backward_ns, steps[i]);
            CHECK_GT(st.largest_backward_ns, steps[i] - 1000);
            CHECK_EQ(st.lead_errors, 0);
            CHECK_EQ(st.lead_waits, 0);
            /* And forward again past the stamps: the reading's own. */
            CHECK_OK(monostamp_manual_set(&c, T0 + YEAR));
            CHECK_OK(monostamp_time_ns(&c, &ns));
            CHECK_EQ(ns, policy == MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT
                             ? (T0 + YEAR) - (T0 + YEAR) % 1000
                             : T0 + YEAR);
            monostamp_clock_destroy(&c);
        }
    }
}

static void test_the_bound_counts_from_where_the_clock_stands_after_a_step(void)
{
    /* A 10 µs bound, µs policy: after an hour's step back the clock goes
     * on from its last stamp, and its own draws may run 10 µs past the
     * reading it stepped away from (the reference), not an hour: the
     * eleventh µs is its own draws' doing, and fails (manual clocks do not
     * wait). */
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.policy = MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT;
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.has_start_ns = 1;
    o.start_ns = T0 - T0 % 1000;
    o.max_lead_ns = 10000;
    CHECK_OK(monostamp_clock_init(&c, &o));
    int64_t first, ns;
    CHECK_OK(monostamp_time_ns(&c, &first));
    CHECK_OK(monostamp_manual_advance(&c, -HOUR));
    for (int k = 1; k <= 10; k++) {
        CHECK_OK(monostamp_time_ns(&c, &ns));
        CHECK_EQ(ns, first + k * 1000);
    }
    CHECK_RC(monostamp_time_ns(&c, &ns), MONOSTAMP_ELEAD);
    /* take() is held the same way, and a refused block changes nothing. */
    int64_t block;
    CHECK_RC(monostamp_clock_take(&c, 2, &block, NULL), MONOSTAMP_ELEAD);
    CHECK_OK(monostamp_manual_set(&c, T0 - T0 % 1000 + 5000));
    CHECK_OK(monostamp_clock_take(&c, 5, &block, NULL));
    CHECK_EQ(block, first + 11000);
    monostamp_clock_destroy(&c);
}

static void test_a_huge_block_is_still_refused(void)
{
    monostamp_clock c;
    int64_t first = 0, ns;
    CHECK_OK(manual(&c, MONOSTAMP_DEFAULT_POLICY, T0));
    CHECK_OK(monostamp_manual_advance(&c, -YEAR));
    CHECK_RC(monostamp_clock_take(&c, INT64_C(1) << 62, &first, NULL), MONOSTAMP_ELEAD);
    CHECK_OK(monostamp_time_ns(&c, &ns));
    CHECK_EQ(ns, T0 - YEAR); /* the state was untouched */
    monostamp_clock_destroy(&c);
}

static void test_a_draw_keeps_its_own_tighter_bound(void)
{
    /* The default 1 s bound on the clock, 200 µs on each draw: a tight loop
     * of µs stamps waits, and every stamp is within 200 µs of a precise
     * reading taken after it. */
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    CHECK_OK(monostamp_clock_init(&c, &o));
    int64_t previous = INT64_MIN;
    for (int i = 0; i < 3000; i++) {
        monostamp_stamp s;
        int64_t after;
        CHECK_OK(monostamp_draw(&c, MONOSTAMP_DRAW_US | MONOSTAMP_DRAW_OFFSET, 200000, &s));
        CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &after));
        CHECK_GT(s.utc_ns, previous);
        CHECK_EQ(s.utc_ns % 1000, 0);
        CHECK_EQ(s.offset_s, 0);
        CHECK_LE(s.utc_ns - after, 200000);
        previous = s.utc_ns;
    }
    monostamp_stamp s;
    CHECK_RC(monostamp_draw(&c, 4u, 0, &s), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_draw(&c, 0, -1, &s), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_draw(NULL, 0, 0, &s), MONOSTAMP_EINVAL);
    /* A looser bound than the clock's is the clock's. */
    CHECK_OK(monostamp_draw(&c, 0, INT64_MAX, &s));
    CHECK_GT(s.utc_ns, previous);
    monostamp_clock_destroy(&c);
}

/* A waiter whose naps each take 80 ms more, as on a loaded machine. */
static void *slow_before(void *context)
{
    (void)context;
    return NULL;
}

static int slow_after(void *context, void *token)
{
    (void)context;
    (void)token;
    monostamp_sleep_for(80000000, 0);
    return 0;
}

static void test_a_draw_that_waited_its_limit_gets_a_stamp_within_the_clock_bound(void)
{
    /* The clock: a 50 ms bound, on a state a manual clock put 140 ms ahead;
     * the draw asks 1 ms.  Its naps take 80 ms more than asked, so its
     * wait for the 1 ms bound runs past what one call may wait (150 ms):
     * it does not fail, it gets a stamp within the clock's own 50 ms. */
    char dir[200], path[256];
    CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "monostamp-steps"), 0);
    snprintf(path, sizeof path, "%s/state", dir);
    CHECK_OK(monostamp_state_file_create(path, 0));
    monostamp_clock pusher, c;
    monostamp_options o;
    int64_t now, pushed;
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &now));
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.has_start_ns = 1;
    o.start_ns = now + 140000000;
    o.shared_path = path;
    CHECK_OK(monostamp_clock_init(&pusher, &o));
    CHECK_OK(monostamp_time_ns(&pusher, &pushed));
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    o.max_lead_ns = 50000000;
    CHECK_OK(monostamp_clock_init(&c, &o));
    const monostamp_waiter slow = {slow_before, slow_after, NULL};
    CHECK_OK(monostamp_clock_set_waiter(&c, &slow));
    monostamp_stamp s;
    CHECK_OK(monostamp_draw(&c, 0, 1000000, &s));
    CHECK_GT(s.utc_ns, pushed);
    int64_t after;
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &after));
    CHECK_LE(s.utc_ns - after, 50000000);
    monostamp_clock_destroy(&c);
    monostamp_clock_destroy(&pusher);
    CHECK_EQ(check_remove_tree(dir), 0);
}

static void test_a_fresh_state_file_starts_at_the_wall_clock(void)
{
    char dir[200], path[256];
    CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "monostamp-steps"), 0);
    snprintf(path, sizeof path, "%s/state", dir);
    CHECK_OK(monostamp_state_file_create(path, 0));
    CHECK_RC(monostamp_state_file_create(path, 0), MONOSTAMP_EEXIST);
    CHECK_RC(monostamp_state_file_create("", 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_state_file_create(path, 2), MONOSTAMP_EINVAL);
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    CHECK_OK(monostamp_clock_init(&c, &o));
    int64_t before, ns, after;
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &before));
    CHECK_OK(monostamp_time_ns(&c, &ns));
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &after));
    /* Its first stamp is its reading: between the two around it. */
    CHECK_GE(ns, before);
    CHECK_LE(ns, after);
    monostamp_clock_destroy(&c);
    /* A file a clock creates itself starts its bound ahead, as before. */
    snprintf(path, sizeof path, "%s/made-by-a-clock", dir);
    o.shared_path = path;
    CHECK_OK(monostamp_clock_init(&c, &o));
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &before));
    CHECK_OK(monostamp_time_ns(&c, &ns));
    CHECK_GT(ns - before, MONOSTAMP_DEFAULT_MAX_LEAD_NS / 2);
    monostamp_clock_destroy(&c);
    CHECK_EQ(check_remove_tree(dir), 0);
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EEXIST),
                 "a file is already at the path of a state file to create");
}

/* `test_steps step-child POLICY`: the C side of tests/python/
 * test_wall_step.py, run under libfaketime: stamps, says "ready", waits
 * for a line while the test steps the wall clock, stamps on, and prints
 * what it saw as JSON (the stamps, its slowest call, its counters). */
static int step_child(int policy)
{
    enum { N = 3000 };
    static int64_t seen[2 * N];
    int64_t slowest = 0;
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.policy = policy;
    o.zone = "UTC";
    if (monostamp_clock_init(&c, &o) != MONOSTAMP_OK)
        return 2;
    for (int i = 0; i < 2 * N; i++) {
        if (i == N) {
            char line[16];
            printf("ready\n");
            fflush(stdout);
            if (fgets(line, sizeof line, stdin) == NULL)
                return 2;
        }
        int64_t t0 = monostamp_monotonic_ns();
        int rc = monostamp_time_ns(&c, &seen[i]);
        if (rc != MONOSTAMP_OK) {
            fprintf(stderr, "stamp %d: %s\n", i, monostamp_strerror(rc));
            return 1;
        }
        if (monostamp_monotonic_ns() - t0 > slowest)
            slowest = monostamp_monotonic_ns() - t0;
    }
    monostamp_stats st;
    monostamp_clock_stats(&c, &st);
    printf("{\"slowest\": %lld, \"stats\": {\"backward_steps\": %llu, "
           "\"largest_backward_ns\": %lld, \"lead_waits\": %llu, \"lead_errors\": %llu}, "
           "\"seen\": [",
           (long long)slowest, (unsigned long long)st.backward_steps,
           (long long)st.largest_backward_ns, (unsigned long long)st.lead_waits,
           (unsigned long long)st.lead_errors);
    for (int i = 0; i < 2 * N; i++)
        printf("%s%lld", i ? "," : "", (long long)seen[i]);
    printf("]}\n");
    monostamp_clock_destroy(&c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "step-child") == 0) {
        monostamp_policy policy;
        return monostamp_policy_from_name(argv[2], &policy) == MONOSTAMP_OK ? step_child(policy) : 2;
    }
    RUN(test_a_step_back_of_any_size_goes_through_the_policy);
    RUN(test_the_bound_counts_from_where_the_clock_stands_after_a_step);
    RUN(test_a_huge_block_is_still_refused);
    RUN(test_a_draw_keeps_its_own_tighter_bound);
    RUN(test_a_draw_that_waited_its_limit_gets_a_stamp_within_the_clock_bound);
    RUN(test_a_fresh_state_file_starts_at_the_wall_clock);
    return check_summary();
}
