/* test_shared_split.c: one sequence whatever happens to a state file's
 * path while processes stamp on it: the working directory changed, a new
 * file renamed over it, the file deleted, and a newcomer after a deletion.
 *
 * Two processes open a clock each on a relative path and stamp µs stamps
 * in bursts, starting together (check_gate: a pipe both wait on closes) and running
 * until both have made EACH stamps and 1.5 s have passed since the event,
 * so that their runs overlap for certain and every way a clock could
 * notice the event (its own checks, the retired state) has come round.
 * Process B opens its clock 300 ms after A, so that their checks do not
 * fall together by chance.  All stamps are then sorted: 0 equal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#if !defined(_WIN32)
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#endif

#include "check.h"
#include "monostamp.h"

#if !defined(_WIN32)
enum { EACH = 200000, BURST = 1000, CAP = 600000 };

#define NAME "run.state"
#define QUIET_AFTER_EVENT_NS INT64_C(1500000000)
#define STAGGER_NS INT64_C(300000000)

static char dir[256];

enum event { EVENT_CHDIR, EVENT_RENAME_OVER, EVENT_DELETE };

/* Shared by parent and both children (an anonymous MAP_SHARED page). */
struct run {
    _Atomic int event_done;
    _Atomic int64_t event_at_ns;  /* monotonic */
    size_t count[2];
    int failed[2];                /* a stamp failed, or went back */
    int64_t stamps[2][CAP];
};

static int compare_ns(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static size_t sorted_duplicates(int64_t *all, size_t n)
{
    size_t duplicates = 0;
    qsort(all, n, sizeof *all, compare_ns);
    for (size_t i = 1; i < n; i++)
        duplicates += all[i] == all[i - 1];
    return duplicates;
}

static int open_clock(monostamp_clock *clock, const char *path)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.policy = MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT;
    o.shared_path = path;
    return monostamp_clock_init(clock, &o);
}

/* What process A does to the path (its working directory is `dir`). */
static int do_event(enum event event)
{
    switch (event) {
    case EVENT_CHDIR:
        return chdir("elsewhere");
    case EVENT_RENAME_OVER: {
        /* A complete new state file, made as any clock makes one. */
        monostamp_clock fresh;
        if (open_clock(&fresh, "fresh.state") != 0)
            return -1;
        monostamp_clock_destroy(&fresh);
        return rename("fresh.state", NAME);
    }
    case EVENT_DELETE:
        return unlink(NAME);
    }
    return -1;
}

static void nap_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* One child: its clock on NAME (relative: the child works in `dir`), the
 * barrier, then bursts until the run is over.  Exits 0, or 1 if its setup
 * failed. */
static void child(struct run *run, int me, enum event event, check_gate *gate)
{
    monostamp_clock clock;
    if (chdir(dir) != 0)
        _exit(1);
    if (me == 1)
        nap_ms((int)(STAGGER_NS / 1000000));
    /* The gate: both children start stamping at once. */
    if (open_clock(&clock, NAME) != 0 || check_gate_wait(gate) != 0)
        _exit(1);
    size_t n = 0;
    int bursts = 0;
    for (;;) {
        for (int i = 0; i < BURST && n < CAP; i++, n++) {
            if (monostamp_time_ns(&clock, &run->stamps[me][n]) != 0 ||
                (n > 0 && run->stamps[me][n] <= run->stamps[me][n - 1]))
                run->failed[me] = 1;
        }
        run->count[me] = n;
        if (me == 0 && ++bursts == 20) {
            if (do_event(event) != 0)
                run->failed[me] = 2;
            atomic_store(&run->event_at_ns, monostamp_monotonic_ns());
            atomic_store(&run->event_done, 1);
        }
        if (n + BURST > CAP)
            break;
        if (n >= EACH && atomic_load(&run->event_done) &&
            monostamp_monotonic_ns() - atomic_load(&run->event_at_ns) > QUIET_AFTER_EVENT_NS)
            break;
        nap_ms(5);
    }
    monostamp_clock_destroy(&clock);
    _exit(0);
}

/* Runs both children through `event` on a fresh directory; the number of
 * equal stamps, or (size_t)-1 if the run itself went wrong. */
static size_t equal_stamps_after(enum event event, const char *sub)
{
    char path[300];
    check_gate gate;
    size_t duplicates = (size_t)-1;
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (mkdir(path, 0700) != 0)
        return duplicates;
    snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/%s", sub);
    snprintf(path, sizeof path, "%s/elsewhere", dir);
    struct run *run = mmap(NULL, sizeof *run, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (run == MAP_FAILED || mkdir(path, 0700) != 0 || check_gate_init(&gate) != 0)
        return duplicates;
    atomic_init(&run->event_done, 0);
    pid_t pids[2];
    for (int me = 0; me < 2; me++) {
        pids[me] = fork();
        if (pids[me] == 0)
            child(run, me, event, &gate);
    }
    int ok = check_gate_open(&gate, 2) == 0;
    for (int me = 0; me < 2; me++) {
        int status = 0;
        if (pids[me] < 0 || waitpid(pids[me], &status, 0) != pids[me] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            ok = 0;
    }
    *strrchr(dir, '/') = '\0';
    if (ok && !run->failed[0] && !run->failed[1] && run->count[0] >= EACH &&
        run->count[1] >= EACH) {
        size_t n0 = run->count[0], n1 = run->count[1];
        memmove(run->stamps[0] + n0, run->stamps[1], n1 * sizeof(int64_t));
        duplicates = sorted_duplicates(run->stamps[0], n0 + n1);
        if (duplicates != 0)
            printf("  %zu equal stamps in %zu + %zu\n", duplicates, n0, n1);
    } else {
        printf("  run failed: ok %d, failed %d %d, counts %zu %zu\n", ok, run->failed[0],
               run->failed[1], run->count[0], run->count[1]);
    }
    munmap(run, sizeof *run);
    return duplicates;
}

static int under_tsan(void)
{
    const char *tsan = getenv("MONOSTAMP_TEST_TSAN");
    return tsan != NULL && tsan[0] != '\0';
}

static void test_chdir_keeps_one_sequence(void)
{
    if (under_tsan())
        SKIP("TSan and fork do not mix");
    CHECK_EQ(equal_stamps_after(EVENT_CHDIR, "chdir"), 0);
}

static void test_rename_over_keeps_one_sequence(void)
{
    if (under_tsan())
        SKIP("TSan and fork do not mix");
    CHECK_EQ(equal_stamps_after(EVENT_RENAME_OVER, "rename"), 0);
}

static void test_delete_keeps_one_sequence(void)
{
    if (under_tsan())
        SKIP("TSan and fork do not mix");
    CHECK_EQ(equal_stamps_after(EVENT_DELETE, "delete"), 0);
}

/* A process makes 300,000 µs stamps (leading the wall clock by most of
 * 300 ms) and leaves; the file is deleted; a newcomer creates it anew.
 * Nobody is left to raise the new file, so its start alone (the lead bound
 * above the wall clock) must clear the departed stamps. */
static void test_a_newcomer_after_deletion_repeats_nothing(void)
{
    enum { DEPARTED = 300000, NEWCOMER = 2000 };
    char path[300];
    monostamp_clock clock;
    int64_t *before = malloc(DEPARTED * sizeof *before), mine;
    CHECK(before != NULL);
    if (before == NULL)
        return;
    snprintf(path, sizeof path, "%s/newcomer.state", dir);
    CHECK_OK(open_clock(&clock, path));
    for (int i = 0; i < DEPARTED; i++)
        CHECK_OK(monostamp_time_ns(&clock, &before[i]));
    monostamp_clock_destroy(&clock);
    CHECK_EQ(unlink(path), 0);
    CHECK_OK(open_clock(&clock, path));
    int repeats = 0;
    for (int i = 0; i < NEWCOMER; i++) {
        CHECK_OK(monostamp_time_ns(&clock, &mine));
        repeats += bsearch(&mine, before, DEPARTED, sizeof *before, compare_ns) != NULL;
    }
    monostamp_clock_destroy(&clock);
    free(before);
    CHECK_EQ(repeats, 0);
}

/* The same in one process, with threads (so that TSan sees the retire and
 * the rejoin): two threads share clock A, a third has clock B of its own,
 * both on one file, while the main thread renames a new file over it and
 * then deletes it. */
enum { THREAD_STAMPS = 60000, THREAD_BURST = 500 };

struct stamper {
    pthread_barrier_t *start;
    monostamp_clock *clock;
    int64_t *stamps;
    int bad;
};

static void *stamp_in_bursts(void *arg)
{
    struct stamper *s = arg;
    pthread_barrier_wait(s->start);
    for (int i = 0; i < THREAD_STAMPS; i++) {
        if (monostamp_time_ns(s->clock, &s->stamps[i]) != 0 ||
            (i > 0 && s->stamps[i] <= s->stamps[i - 1]))
            s->bad = 1;
        if (i % THREAD_BURST == THREAD_BURST - 1)
            nap_ms(1);
    }
    return NULL;
}

static void test_threads_through_rename_and_delete(void)
{
    char path[300], fresh[300];
    monostamp_clock a, b, f;
    pthread_barrier_t start;
    pthread_t ids[3];
    struct stamper s[3];
    int64_t *all = malloc(3 * THREAD_STAMPS * sizeof *all);
    CHECK(all != NULL);
    snprintf(path, sizeof path, "%s/threads.state", dir);
    snprintf(fresh, sizeof fresh, "%s/threads.fresh", dir);
    CHECK_OK(open_clock(&a, path));
    CHECK_OK(open_clock(&b, path));
    CHECK_EQ(pthread_barrier_init(&start, NULL, 4), 0);
    for (int t = 0; t < 3; t++) {
        s[t] = (struct stamper){&start, t < 2 ? &a : &b, all + t * THREAD_STAMPS, 0};
        CHECK_EQ(pthread_create(&ids[t], NULL, stamp_in_bursts, &s[t]), 0);
    }
    pthread_barrier_wait(&start);
    nap_ms(20);
    CHECK_OK(open_clock(&f, fresh));
    monostamp_clock_destroy(&f);
    CHECK_EQ(rename(fresh, path), 0);
    nap_ms(20);
    CHECK_EQ(unlink(path), 0);
    for (int t = 0; t < 3; t++) {
        pthread_join(ids[t], NULL);
        CHECK_EQ(s[t].bad, 0);
    }
    pthread_barrier_destroy(&start);
    monostamp_clock_destroy(&a);
    monostamp_clock_destroy(&b);
    size_t duplicates = sorted_duplicates(all, 3 * THREAD_STAMPS);
    free(all);
    CHECK_EQ(duplicates, 0);
}
#else
static void test_chdir_keeps_one_sequence(void)
{
    SKIP("no fork(); Windows pins the full path instead (docs/windows.md)");
}
#endif

int main(void)
{
#if !defined(_WIN32)
    if (check_make_temp_dir(dir, sizeof dir, "monostamp-split") != 0) {
        perror("test_shared_split setup");
        return 1;
    }
#endif
    RUN(test_chdir_keeps_one_sequence);
#if !defined(_WIN32)
    RUN(test_rename_over_keeps_one_sequence);
    RUN(test_delete_keeps_one_sequence);
    RUN(test_a_newcomer_after_deletion_repeats_nothing);
    RUN(test_threads_through_rename_and_delete);
    check_remove_tree(dir);
#endif
    return check_summary();
}
