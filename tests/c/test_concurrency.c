/* test_concurrency.c: stamps from 2, 4 and 8 threads on one clock, and
 * from a parent and its fork() children on the default clock, are unique;
 * each thread's own stamps strictly increase. */
#include <pthread.h> /* winpthreads under mingw-w64 */
#include <stdlib.h>
#if !defined(_WIN32)
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "check.h"
#include "monostamp.h"

struct worker {
    pthread_barrier_t *start; /* every thread starts stamping at once */
    monostamp_clock *clock;
    int64_t *stamps;
    size_t count;
    int failures; /* errors or non-increasing stamps seen by this thread */
};

static void *take_stamps(void *arg)
{
    struct worker *w = arg;
    int64_t previous = INT64_MIN;
    pthread_barrier_wait(w->start);
    for (size_t i = 0; i < w->count; i++) {
        int64_t ns;
        if (monostamp_time_ns(w->clock, &ns) != 0 || ns <= previous)
            w->failures++;
        w->stamps[i] = previous = ns;
    }
    return NULL;
}

static int compare_ns(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static size_t count_duplicates(int64_t *stamps, size_t n)
{
    size_t duplicates = 0;
    qsort(stamps, n, sizeof *stamps, compare_ns);
    for (size_t i = 1; i < n; i++)
        duplicates += stamps[i] == stamps[i - 1];
    return duplicates;
}

static size_t per_thread(void)
{
    /* TSan runs ~10x slower: fewer stamps still exercise every race. */
    return getenv("MONOSTAMP_TEST_TSAN") ? 100000 : 1000000;
}

static void threads_unique(int threads, int policy, int source)
{
    monostamp_clock clock;
    monostamp_options o;
    size_t n = per_thread();
    pthread_t ids[8];
    struct worker workers[8];
    int64_t *all = malloc(sizeof(int64_t) * n * (size_t)threads);

    CHECK(all != NULL);
    monostamp_options_init(&o);
    o.policy = policy;
    o.source = source;
    o.zone = "UTC";
    /* Unbounded: 4 M µs stamps lead their source by seconds, and a lead
     * wait would only slow the race down (the bound has its own tests). */
    o.max_lead_ns = 0;
    CHECK_OK(monostamp_clock_init(&clock, &o));
    /* A barrier, so that the threads race for certain: created one by
     * one on a busy machine, each could otherwise finish alone. */
    pthread_barrier_t start;
    CHECK_EQ(pthread_barrier_init(&start, NULL, (unsigned)threads), 0);
    for (int t = 0; t < threads; t++) {
        workers[t] = (struct worker){&start, &clock, all + (size_t)t * n, n, 0};
        CHECK_EQ(pthread_create(&ids[t], NULL, take_stamps, &workers[t]), 0);
    }
    int failures = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        failures += workers[t].failures;
    }
    pthread_barrier_destroy(&start);
    monostamp_stats st;
    monostamp_clock_stats(&clock, &st);
    monostamp_clock_destroy(&clock);
    size_t duplicates = count_duplicates(all, n * (size_t)threads);
    free(all);
    CHECK_EQ(failures, 0);
    CHECK_EQ(duplicates, 0);
    /* Racing threads may lose counter updates: a lower bound, never more. */
    CHECK_GT(st.readings, 0);
    CHECK_LE(st.readings, n * (size_t)threads);
}

static void test_2_threads_nanosecond(void)
{
    threads_unique(2, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, MONOSTAMP_SOURCE_REALTIME);
}
static void test_4_threads_nanosecond(void)
{
    threads_unique(4, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, MONOSTAMP_SOURCE_REALTIME);
}
static void test_8_threads_nanosecond(void)
{
    threads_unique(8, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, MONOSTAMP_SOURCE_REALTIME);
}
static void test_8_threads_nanosecond_coarse(void)
{
    threads_unique(8, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                   MONOSTAMP_SOURCE_REALTIME_COARSE);
}
static void test_4_threads_microsecond_coarse(void)
{
    threads_unique(4, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT,
                   MONOSTAMP_SOURCE_REALTIME_COARSE);
}

/* Parent and children each take stamps from the default clock into an
 * array that fork() shares; together they must have no duplicate. */
static void test_fork_children_share_the_default_sequence(void)
{
#if defined(_WIN32)
    SKIP("no fork(): the default clock's state is process-private there "
         "(processes share a sequence through a state file: test_shared)");
#else
    enum { CHILDREN = 4, EACH = 100000 };
    size_t total = (size_t)(CHILDREN + 1) * EACH;
    int64_t *all = mmap(NULL, total * sizeof *all, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(all != MAP_FAILED);
    int64_t warm;
    CHECK_OK(monostamp_default_time_ns(&warm)); /* parent had a stamp before forking */

    /* The children and the parent start stamping together (a gate), so
     * that their runs overlap for certain. */
    check_gate gate;
    CHECK_EQ(check_gate_init(&gate), 0);
    pid_t pids[CHILDREN];
    for (int c = 0; c < CHILDREN; c++) {
        pids[c] = fork();
        CHECK(pids[c] >= 0);
        if (pids[c] == 0) {
            int bad = check_gate_wait(&gate) != 0;
            for (size_t i = 0; i < EACH; i++)
                bad |= monostamp_default_time_ns(&all[(size_t)(c + 1) * EACH + i]) != 0;
            _exit(bad);
        }
    }
    CHECK_EQ(check_gate_open(&gate, CHILDREN), 0);
    for (size_t i = 0; i < EACH; i++)
        CHECK_OK(monostamp_default_time_ns(&all[i]));
    for (int c = 0; c < CHILDREN; c++) {
        int status;
        CHECK_EQ(waitpid(pids[c], &status, 0), pids[c]);
        CHECK(WIFEXITED(status));
        CHECK_EQ(WEXITSTATUS(status), 0);
    }
    for (size_t i = 0; i < total; i++)
        CHECK_GT(all[i], warm);
    size_t duplicates = count_duplicates(all, total);
    munmap(all, total * sizeof *all);
    CHECK_EQ(duplicates, 0);
#endif
}

int main(void)
{
    RUN(test_2_threads_nanosecond);
    RUN(test_4_threads_nanosecond);
    RUN(test_8_threads_nanosecond);
    RUN(test_8_threads_nanosecond_coarse);
    RUN(test_4_threads_microsecond_coarse);
    RUN(test_fork_children_share_the_default_sequence);
    return check_summary();
}
