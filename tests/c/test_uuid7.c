/*
 * test_uuid7.c: UUIDv7 ids (layout, the shared vectors, the exact inverse
 * over every nanosecond of a millisecond, order and uniqueness across
 * threads and fork() children, fresh random tails in children) and blocks
 * of stamps from monostamp_clock_take (policy steps, the lead bound, bad
 * arguments, disjointness from single stamps under 4 threads).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "check.h"
#include "vectors.h"
#include "monostamp.h"

static int tsan(void)
{
    return getenv("MONOSTAMP_TEST_TSAN") != NULL;
}

static int make_clock(monostamp_clock *clock, int policy, int source, int64_t start_ns,
                      int64_t max_lead_ns)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.policy = policy;
    o.source = source;
    o.has_start_ns = source == MONOSTAMP_SOURCE_MANUAL;
    o.start_ns = start_ns;
    o.max_lead_ns = max_lead_ns;
    o.on_lead = MONOSTAMP_ON_LEAD_ERROR;
    return monostamp_clock_init(clock, &o);
}

static uint64_t bits(const uint8_t id[16], int first_bit, int count)
{
    uint64_t v = 0;
    for (int b = first_bit; b < first_bit + count; b++)
        v = v << 1 | (uint64_t)(id[b / 8] >> (7 - b % 8) & 1);
    return v;
}

static int compare_ids(const void *a, const void *b)
{
    return memcmp(a, b, 16);
}

/* ------------------------------------------------------------- layout */

static void test_layout_of_a_known_stamp(void)
{
    uint8_t id[16];
    int64_t ns = INT64_C(1764777600123456789), back = 0;
    CHECK_OK(monostamp_uuid7_pack(ns, UINT64_C(0x3FFFFFFFFFFFFF), id));
    CHECK_EQ(bits(id, 0, 48), ns / 1000000);
    CHECK_EQ(bits(id, 48, 4), 7);                                      /* version */
    CHECK_EQ(bits(id, 52, 12), (ns % 1000000) * 4096 / 1000000);      /* method 3 */
    CHECK_EQ(bits(id, 64, 2), 2);                                      /* variant */
    CHECK_EQ(bits(id, 52, 12) << 8 | bits(id, 66, 8), ((ns % 1000000) << 20) / 1000000);
    CHECK_EQ(bits(id, 74, 54), UINT64_C(0x3FFFFFFFFFFFFF));
    CHECK_OK(monostamp_uuid7_ns(id, &back));
    CHECK_EQ(back, ns);
}

static void test_every_ns_of_a_millisecond_round_trips_in_order(void)
{
    uint8_t id[16], previous[16];
    int64_t base = INT64_C(1764777600123000000), back;
    for (int64_t k = 0; k < 1000000; k++) {
        CHECK_OK(monostamp_uuid7_pack(base + k, 0, id));
        CHECK_EQ(bits(id, 52, 12), k * 4096 / 1000000);
        CHECK_OK(monostamp_uuid7_ns(id, &back));
        if (back != base + k)
            CHECK_EQ(back, base + k);
        if (k > 0 && memcmp(previous, id, 16) >= 0)
            CHECK(memcmp(previous, id, 16) < 0);
        memcpy(previous, id, 16);
    }
}

static void test_out_of_range_and_bad_arguments(void)
{
    uint8_t id[16] = {0};
    int64_t ns;
    CHECK_RC(monostamp_uuid7_pack(-1, 0, id), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_uuid7_from_ns(INT64_MIN, id), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_uuid7_pack(0, 0, NULL), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_uuid7_ns(id, NULL), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_uuid7(NULL, id), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_uuid7_ns(id, &ns), MONOSTAMP_ENOTV7); /* all zero: version 0 */
    CHECK_OK(monostamp_uuid7_pack(INT64_MAX, 0, id));
    CHECK_OK(monostamp_uuid7_ns(id, &ns));
    CHECK_EQ(ns, INT64_MAX);
    CHECK(strstr(monostamp_strerror(MONOSTAMP_ENOTV7), "UUIDv7") != NULL);
}

/* ------------------------------------------------------------- vectors */

static void test_vectors(void)
{
    FILE *f = open_vectors("uuid7.tsv");
    char line[256], text[MONOSTAMP_UUID_TEXT_SIZE];
    int cases = 0;
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        char *fl[5];
        uint8_t id[16], parsed[16];
        int64_t back = 0;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        CHECK_EQ(split(line, fl, 5), 4);
        int64_t ns = strtoll(fl[0], NULL, 10);
        uint64_t tail = strtoull(fl[1], NULL, 16);
        CHECK_OK(monostamp_uuid7_pack(ns, tail, id));
        CHECK_EQ(bits(id, 52, 12), strtoll(fl[2], NULL, 10));
        monostamp_uuid_format(id, text);
        CHECK_STR_EQ(text, fl[3]);
        CHECK_OK(monostamp_uuid_parse(fl[3], strlen(fl[3]), parsed));
        CHECK(memcmp(parsed, id, 16) == 0);
        CHECK_OK(monostamp_uuid7_ns(parsed, &back));
        CHECK_EQ(back, ns);
        cases++;
    }
    fclose(f);
    CHECK_GE(cases, 20);
}

static void test_bad_vectors(void)
{
    FILE *f = open_vectors("uuid7_bad.tsv");
    char line[256];
    int cases = 0;
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        char *fl[3];
        uint8_t id[16];
        int64_t ns;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        CHECK_EQ(split(line, fl, 3), 2);
        int rc = monostamp_uuid_parse(fl[0], strlen(fl[0]), id);
        if (strcmp(fl[1], "syntax") == 0) {
            CHECK_RC(rc, MONOSTAMP_EINVAL);
        } else {
            CHECK_OK(rc);
            CHECK_RC(monostamp_uuid7_ns(id, &ns),
                     strcmp(fl[1], "range") == 0 ? MONOSTAMP_ERANGE : MONOSTAMP_ENOTV7);
        }
        cases++;
    }
    fclose(f);
    CHECK_GE(cases, 15);
}

/* ------------------------------------------------------------- clocks */

static void test_manual_clock_stepped_back_still_increases(void)
{
    monostamp_clock clock;
    uint8_t a[16], b[16], c[16];
    int64_t ns_a, ns_b, ns_c;
    CHECK_OK(make_clock(&clock, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                        MONOSTAMP_SOURCE_MANUAL, INT64_C(1764777600000000000), 0));
    CHECK_OK(monostamp_uuid7(&clock, a));
    CHECK_OK(monostamp_manual_advance(&clock, -INT64_C(3600000000000)));
    CHECK_OK(monostamp_uuid7(&clock, b));
    CHECK_OK(monostamp_uuid7(&clock, c));
    CHECK(memcmp(a, b, 16) < 0);
    CHECK(memcmp(b, c, 16) < 0);
    CHECK_OK(monostamp_uuid7_ns(a, &ns_a));
    CHECK_OK(monostamp_uuid7_ns(b, &ns_b));
    CHECK_OK(monostamp_uuid7_ns(c, &ns_c));
    CHECK_EQ(ns_a, INT64_C(1764777600000000000));
    CHECK_EQ(ns_b, ns_a + 1);
    CHECK_EQ(ns_c, ns_a + 2);
    /* Before 1970 there is no id, and the clock's state is not moved. */
    CHECK_OK(monostamp_manual_set(&clock, -5));
    monostamp_clock_set_policy(&clock, MONOSTAMP_ACCEPT_PLATFORM_TIME);
    CHECK_RC(monostamp_uuid7(&clock, a), MONOSTAMP_ERANGE);
    monostamp_clock_destroy(&clock);
}

/* Every worker thread starts at once (a barrier), so that they race for
 * certain rather than by the scheduler's grace. */
static pthread_barrier_t workers_start;

struct id_worker {
    monostamp_clock *clock;
    uint8_t (*ids)[16];
    size_t count;
    int failures; /* errors, or ids not above this thread's previous one */
};

static void *make_ids(void *arg)
{
    struct id_worker *w = arg;
    pthread_barrier_wait(&workers_start);
    for (size_t i = 0; i < w->count; i++) {
        if (monostamp_uuid7(w->clock, w->ids[i]) != 0 ||
            (i > 0 && memcmp(w->ids[i - 1], w->ids[i], 16) >= 0))
            w->failures++;
    }
    return NULL;
}

static void test_8_threads_ids_increase_per_thread_and_are_distinct(void)
{
    enum { THREADS = 8 };
    size_t each = tsan() ? 20000 : 200000, total = THREADS * each;
    uint8_t (*ids)[16] = malloc(total * 16);
    monostamp_clock clock;
    pthread_t threads[THREADS];
    struct id_worker workers[THREADS];
    CHECK(ids != NULL);
    CHECK_OK(make_clock(&clock, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                        MONOSTAMP_SOURCE_REALTIME, 0, 0));
    CHECK_EQ(pthread_barrier_init(&workers_start, NULL, THREADS), 0);
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (struct id_worker){&clock, ids + (size_t)t * each, each, 0};
        CHECK_EQ(pthread_create(&threads[t], NULL, make_ids, &workers[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        failures += workers[t].failures;
    }
    pthread_barrier_destroy(&workers_start);
    monostamp_clock_destroy(&clock);
    qsort(ids, total, 16, compare_ids);
    size_t same_id = 0, same_prefix = 0;
    for (size_t i = 1; i < total; i++) {
        same_id += memcmp(ids[i - 1], ids[i], 16) == 0;
        same_prefix += memcmp(ids[i - 1], ids[i], 8) == 0; /* ms + 12 fraction bits */
    }
    free(ids);
    CHECK_EQ(failures, 0);
    CHECK_EQ(same_id, 0);
    (void)same_prefix; /* may be > 0: two stamps < 244 ns apart share 12 bits */
}

#if !defined(_WIN32)
static int compare_tails(const void *a, const void *b)
{
    const uint8_t *x = a, *y = b;
    return memcmp(x + 9, y + 9, 7);
}

/* The parent warms its random buffer, then it and 3 children make ids on
 * the default clock into memory they share: no id and no random tail may
 * appear twice (a child that reused its parent's buffered bytes would repeat
 * the parent's tails). */
static void test_fork_children_repeat_no_id_and_no_tail(void)
{
    enum { CHILDREN = 3, EACH = 50000 };
    size_t total = (size_t)(CHILDREN + 1) * EACH;
    uint8_t (*ids)[16] = mmap(NULL, total * 16, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    monostamp_clock *clock;
    uint8_t warm[16];
    if (tsan()) {
        printf("  (fork test skipped under TSan)\n");
        return;
    }
    CHECK(ids != MAP_FAILED);
    CHECK_OK(monostamp_default_clock(&clock));
    CHECK_OK(monostamp_uuid7(clock, warm)); /* fills this thread's buffer */
    /* Parent and children start together (a gate), so that they overlap
     * for certain. */
    check_gate gate;
    CHECK_EQ(check_gate_init(&gate), 0);
    pid_t pids[CHILDREN];
    for (int c = 0; c < CHILDREN; c++) {
        pids[c] = fork();
        CHECK(pids[c] >= 0);
        if (pids[c] == 0) {
            int bad = check_gate_wait(&gate) != 0;
            for (size_t i = 0; i < EACH; i++)
                bad |= monostamp_uuid7(clock, ids[(size_t)(c + 1) * EACH + i]) != 0;
            _exit(bad);
        }
    }
    CHECK_EQ(check_gate_open(&gate, CHILDREN), 0);
    for (size_t i = 0; i < EACH; i++)
        CHECK_OK(monostamp_uuid7(clock, ids[i]));
    for (int c = 0; c < CHILDREN; c++) {
        int status;
        CHECK_EQ(waitpid(pids[c], &status, 0), pids[c]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    /* Each process's ids increase; all are distinct. */
    for (int p = 0; p <= CHILDREN; p++)
        for (size_t i = 1; i < EACH; i++)
            if (memcmp(ids[(size_t)p * EACH + i - 1], ids[(size_t)p * EACH + i], 16) >= 0)
                CHECK(!"ids of one process did not increase");
    qsort(ids, total, 16, compare_ids);
    size_t same_id = 0;
    for (size_t i = 1; i < total; i++)
        same_id += memcmp(ids[i - 1], ids[i], 16) == 0;
    qsort(ids, total, 16, compare_tails);
    size_t same_tail = 0;
    for (size_t i = 1; i < total; i++)
        same_tail += compare_tails(ids[i - 1], ids[i]) == 0;
    munmap(ids, total * 16);
    CHECK_EQ(same_id, 0);
    /* 200,000 tails of 54 bits: a chance repeat has probability ~1e-6. */
    CHECK_EQ(same_tail, 0);
}
#endif

/* --------------------------------------------------------------- take */

static void test_take_steps_by_policy(void)
{
    monostamp_clock clock;
    int64_t first, step, single;
    CHECK_OK(make_clock(&clock, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                        MONOSTAMP_SOURCE_MANUAL, 1000000, 0));
    CHECK_OK(monostamp_clock_take(&clock, 5, &first, &step));
    CHECK_EQ(first, 1000000);
    CHECK_EQ(step, 1);
    CHECK_OK(monostamp_time_ns(&clock, &single));
    CHECK_EQ(single, 1000005);
    monostamp_clock_set_policy(&clock, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT);
    CHECK_OK(monostamp_clock_take(&clock, 3, &first, &step));
    CHECK_EQ(first, 1001000);
    CHECK_EQ(step, 1000);
    CHECK_OK(monostamp_time_ns(&clock, &single));
    CHECK_EQ(single, 1004000);
    CHECK_OK(monostamp_clock_take(&clock, 1, &first, NULL));
    CHECK_EQ(first, 1005000);
    /* The counters count a block as n stamps from one reading. */
    monostamp_stats stats;
    monostamp_clock_stats(&clock, &stats);
    CHECK_EQ(stats.readings, 5 + 1 + 3 + 1 + 1);
    CHECK_EQ(stats.lead_ns, 1005000 - 1000000);
    /* The two policies that allow equal stamps have no blocks. */
    monostamp_clock_set_policy(&clock, MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES);
    CHECK_RC(monostamp_clock_take(&clock, 2, &first, &step), MONOSTAMP_EPOLICY);
    monostamp_clock_set_policy(&clock, MONOSTAMP_ACCEPT_PLATFORM_TIME);
    CHECK_RC(monostamp_clock_take(&clock, 2, &first, &step), MONOSTAMP_EPOLICY);
    monostamp_clock_destroy(&clock);
}

static void test_take_refuses_bad_n_and_leaves_the_state(void)
{
    monostamp_clock clock;
    int64_t first = 7, step = 7, single;
    CHECK_OK(make_clock(&clock, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT,
                        MONOSTAMP_SOURCE_MANUAL, INT64_MAX - 10000000, 5000000));
    CHECK_RC(monostamp_clock_take(&clock, 0, &first, &step), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_clock_take(&clock, -3, &first, &step), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_clock_take(&clock, INT64_MAX, &first, &step), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_clock_take(&clock, 5002, &first, &step), MONOSTAMP_ELEAD); /* > lead */
    CHECK_RC(monostamp_clock_take(NULL, 1, &first, &step), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_clock_take(&clock, 1, NULL, &step), MONOSTAMP_EINVAL);
    CHECK_EQ(first, 7);
    CHECK_EQ(step, 7);
    /* A block that fits the bound now, but a second one leads too far. */
    CHECK_OK(monostamp_clock_take(&clock, 5001, &first, &step));
    CHECK_EQ(first, INT64_MAX - 10000000 - (INT64_MAX - 10000000) % 1000);
    CHECK_RC(monostamp_clock_take(&clock, 2, &first, &step), MONOSTAMP_ELEAD);
    CHECK_OK(monostamp_manual_advance(&clock, 5000000));
    CHECK_OK(monostamp_time_ns(&clock, &single));
    CHECK_EQ(single, INT64_MAX - 10000000 - (INT64_MAX - 10000000) % 1000 + 5001000);
    monostamp_clock_destroy(&clock);
    /* Past INT64_MAX. */
    CHECK_OK(make_clock(&clock, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                        MONOSTAMP_SOURCE_MANUAL, INT64_MAX - 10, 0));
    CHECK_RC(monostamp_clock_take(&clock, 12, &first, &step), MONOSTAMP_ERANGE);
    CHECK_OK(monostamp_clock_take(&clock, 11, &first, &step));
    CHECK_EQ(first + 10, INT64_MAX);
    monostamp_clock_destroy(&clock);
}

struct take_worker {
    monostamp_clock *clock;
    int64_t *stamps; /* blocks expanded, and single stamps */
    size_t count;
    int failures;
};

/* Alternates blocks of 1..16 stamps with single stamps, writing each
 * stamp handed to this thread. */
static void *take_and_stamp(void *arg)
{
    struct take_worker *w = arg;
    size_t i = 0;
    int64_t previous = INT64_MIN;
    pthread_barrier_wait(&workers_start);
    for (int64_t n = 1; i < w->count; n = n % 16 + 1) {
        int64_t first, step;
        if (monostamp_clock_take(w->clock, n, &first, &step) != 0 || step != 1 ||
            first <= previous) {
            w->failures++;
            return NULL;
        }
        for (int64_t k = 0; k < n && i < w->count; k++)
            w->stamps[i++] = previous = first + k;
        if (i < w->count && (monostamp_time_ns(w->clock, &w->stamps[i]) != 0 ||
                             w->stamps[i] <= previous))
            w->failures++;
        if (i < w->count)
            previous = w->stamps[i++];
    }
    return NULL;
}

static int compare_ns(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_take_blocks_disjoint_from_single_stamps_under_4_threads(void)
{
    enum { THREADS = 4 };
    size_t each = tsan() ? 20000 : 400000, total = THREADS * each;
    int64_t *stamps = malloc(total * sizeof *stamps);
    monostamp_clock clock;
    pthread_t threads[THREADS];
    struct take_worker workers[THREADS];
    CHECK(stamps != NULL);
    CHECK_OK(make_clock(&clock, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                        MONOSTAMP_SOURCE_REALTIME_COARSE, 0, 0));
    CHECK_EQ(pthread_barrier_init(&workers_start, NULL, THREADS), 0);
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (struct take_worker){&clock, stamps + (size_t)t * each, each, 0};
        CHECK_EQ(pthread_create(&threads[t], NULL, take_and_stamp, &workers[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        failures += workers[t].failures;
    }
    pthread_barrier_destroy(&workers_start);
    monostamp_clock_destroy(&clock);
    qsort(stamps, total, sizeof *stamps, compare_ns);
    size_t duplicates = 0;
    for (size_t i = 1; i < total; i++)
        duplicates += stamps[i] == stamps[i - 1];
    free(stamps);
    CHECK_EQ(failures, 0);
    CHECK_EQ(duplicates, 0);
}

int main(void)
{
    RUN(test_layout_of_a_known_stamp);
    RUN(test_every_ns_of_a_millisecond_round_trips_in_order);
    RUN(test_out_of_range_and_bad_arguments);
    RUN(test_vectors);
    RUN(test_bad_vectors);
    RUN(test_manual_clock_stepped_back_still_increases);
    RUN(test_8_threads_ids_increase_per_thread_and_are_distinct);
#if !defined(_WIN32)
    RUN(test_fork_children_repeat_no_id_and_no_tail);
#endif
    RUN(test_take_steps_by_policy);
    RUN(test_take_refuses_bad_n_and_leaves_the_state);
    RUN(test_take_blocks_disjoint_from_single_stamps_under_4_threads);
    return check_summary();
}
