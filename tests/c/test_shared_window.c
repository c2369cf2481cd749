/* test_shared_window.c: a newcomer that starts a file in place of one a
 * writer still stamps on, before the writer has looked at the path (the
 * last window in which a new file could start below stamps already handed
 * out).
 *
 * The writer stamps µs values as fast as it can with a 2 ms lead bound, so
 * that its stamps lead real time by the whole bound, the case in which a
 * newcomer's new file (started the bound above the wall clock) meets them.
 * Once it leads, the parent deletes the file, or renames a hand-made file
 * holding 0 over it, and at once forks a newcomer that opens the path and
 * stamps.  The writer looks every 5 ms of its readings; until it does, both
 * hand out values a bound above real time.  Each round: no value twice in
 * the union, and each process's stamps strictly rising. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "monostamp.h"

#if !defined(_WIN32)
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 12, CAP = 400000, NEWCOMER_STAMPS = 20000 };
enum { WRITER = 0, NEWCOMER = 1, SLOTS = 2 };
#define LEAD_NS INT64_C(2000000)
#define AFTER_NS INT64_C(30000000) /* the writer stamps on for this after the newcomer */

enum replacement { DELETED, ZERO_RENAMED_OVER };

struct run {
    _Atomic int64_t count[SLOTS];
    _Atomic int leading;  /* the writer leads real time by half its bound */
    _Atomic int stop;
    _Atomic int failed[SLOTS]; /* 1: a stamp at or below the one before; < 0: a code */
    int64_t stamps[SLOTS][CAP];
};

static char path[300];

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int open_clock(monostamp_clock *clock)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.policy = MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT;
    o.max_lead_ns = LEAD_NS;
    o.shared_path = path;
    return monostamp_clock_init(clock, &o);
}

/* One stamp into the slot, checked against the one before; 0 when full. */
static int record(struct run *run, int slot, monostamp_clock *clock, size_t *n)
{
    int64_t ns = 0;
    if (*n >= CAP)
        return 0;
    int rc = monostamp_time_ns(clock, &ns);
    if (rc != 0)
        atomic_store(&run->failed[slot], rc);
    else if (*n > 0 && ns <= run->stamps[slot][*n - 1])
        atomic_store(&run->failed[slot], 1);
    run->stamps[slot][(*n)++] = ns;
    atomic_store(&run->count[slot], (int64_t)*n);
    return 1;
}

static void writer(struct run *run)
{
    monostamp_clock clock;
    size_t n = 0;
    if (open_clock(&clock) != 0)
        _exit(1);
    while (!atomic_load(&run->stop) && record(run, WRITER, &clock, &n))
        if (!atomic_load(&run->leading) && run->stamps[WRITER][n - 1] - wall_ns() > LEAD_NS / 2)
            atomic_store(&run->leading, 1);
    monostamp_clock_destroy(&clock);
    _exit(0);
}

static void newcomer(struct run *run)
{
    monostamp_clock clock;
    size_t n = 0;
    if (open_clock(&clock) != 0)
        _exit(1);
    while (n < NEWCOMER_STAMPS && record(run, NEWCOMER, &clock, &n))
        ;
    monostamp_clock_destroy(&clock);
    _exit(0);
}

/* A state file written by hand, its sequence at 0 and no anchor. */
static int rename_zero_over(void)
{
    char other[320];
    unsigned char bytes[128] = {0};
    uint32_t version = 1, size = sizeof bytes;
    memcpy(bytes, "monostmp", 8);
    memcpy(bytes + 8, &version, 4);
    memcpy(bytes + 12, &size, 4);
    snprintf(other, sizeof other, "%s.new", path);
    int fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -1;
    int ok = write(fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes;
    return close(fd) == 0 && ok ? rename(other, path) : -1;
}

static int compare_ns(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* One round; the number of values handed out twice, or -1 on a failure. */
static long round_of(struct run *run, enum replacement how)
{
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/monostamp-window-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/state", dir);
    memset(run, 0, sizeof *run);
    pid_t pids[SLOTS];
    if ((pids[WRITER] = fork()) == 0)
        writer(run);
    while (!atomic_load(&run->leading) && !atomic_load(&run->failed[WRITER]) &&
           atomic_load(&run->count[WRITER]) < CAP)
        ;
    int rc = how == DELETED ? unlink(path) : rename_zero_over();
    if ((pids[NEWCOMER] = fork()) == 0)
        newcomer(run);
    int status = 0, bad = rc != 0;
    bad |= waitpid(pids[NEWCOMER], &status, 0) != pids[NEWCOMER] || !WIFEXITED(status) ||
           WEXITSTATUS(status) != 0;
    int64_t until = monostamp_monotonic_ns() + AFTER_NS;
    while (monostamp_monotonic_ns() < until)
        ;
    atomic_store(&run->stop, 1);
    bad |= waitpid(pids[WRITER], &status, 0) != pids[WRITER] || !WIFEXITED(status) ||
           WEXITSTATUS(status) != 0;
    bad |= atomic_load(&run->failed[WRITER]) || atomic_load(&run->failed[NEWCOMER]);
    bad |= !atomic_load(&run->leading);
    check_remove_tree(dir);
    if (bad) {
        printf("  a round failed: replacement %d, writer %d (leading %d), newcomer %d\n", rc,
               atomic_load(&run->failed[WRITER]), atomic_load(&run->leading),
               atomic_load(&run->failed[NEWCOMER]));
        return -1;
    }
    size_t w = (size_t)run->count[WRITER], c = (size_t)run->count[NEWCOMER];
    int64_t *all = malloc((w + c) * sizeof *all);
    if (all == NULL)
        return -1;
    memcpy(all, run->stamps[WRITER], w * sizeof *all);
    memcpy(all + w, run->stamps[NEWCOMER], c * sizeof *all);
    qsort(all, w + c, sizeof *all, compare_ns);
    long twice = 0;
    for (size_t i = 1; i < w + c; i++)
        twice += all[i] == all[i - 1];
    free(all);
    return twice;
}

static void rounds(enum replacement how)
{
    const char *tsan = getenv("MONOSTAMP_TEST_TSAN");
    if (tsan != NULL && tsan[0] != '\0')
        SKIP("TSan and fork do not mix");
    struct run *run = mmap(NULL, sizeof *run, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                           -1, 0);
    CHECK(run != MAP_FAILED);
    if (run == MAP_FAILED)
        return;
    long twice = 0, failed = 0;
    for (int r = 0; r < ROUNDS; r++) {
        long t = round_of(run, how);
        if (t < 0)
            failed++;
        else
            twice += t;
    }
    printf("  %d rounds: %ld values handed out twice, %ld rounds failed\n", ROUNDS, twice,
           failed);
    CHECK_EQ(failed, 0);
    CHECK_EQ(twice, 0);
    munmap(run, sizeof *run);
}

static void test_a_newcomer_on_a_new_file_beside_a_leading_writer(void)
{
    rounds(DELETED);
}

static void test_a_newcomer_on_a_file_holding_0_beside_a_leading_writer(void)
{
    rounds(ZERO_RENAMED_OVER);
}

/* A newcomer with the default 1 s bound on a file that leads by about 1 ms
 * (its clocks draw faster than real time) keeps that lead: it does not
 * raise the file to its own bound, for which the file's 2 ms clocks would
 * then wait. */
static void test_a_newcomer_keeps_a_leading_files_lead(void)
{
    char dir[256];
    monostamp_clock a, b;
    monostamp_options o;
    int64_t ns = 0;
    snprintf(dir, sizeof dir, "/tmp/monostamp-window-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/state", dir);
    CHECK_OK(open_clock(&a));
    do
        CHECK_OK(monostamp_time_ns(&a, &ns));
    while (ns - wall_ns() < LEAD_NS / 2);
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    CHECK_OK(monostamp_clock_init(&b, &o));
    CHECK_OK(monostamp_time_ns(&b, &ns));
    CHECK_LT(ns - wall_ns(), LEAD_NS + INT64_C(20000000));
    CHECK_OK(monostamp_time_ns(&a, &ns));
    CHECK_LT(ns - wall_ns(), LEAD_NS + INT64_C(1000000));
    monostamp_clock_destroy(&b);
    monostamp_clock_destroy(&a);
    check_remove_tree(dir);
}
#else
static void test_a_newcomer_on_a_new_file_beside_a_leading_writer(void)
{
    SKIP("the rounds fork; Windows cannot delete or replace a mapped file");
}

static void test_a_newcomer_on_a_file_holding_0_beside_a_leading_writer(void)
{
    SKIP("the rounds fork; Windows cannot delete or replace a mapped file");
}

static void test_a_newcomer_keeps_a_leading_files_lead(void)
{
    SKIP("mkdtemp and the test's wall reading are POSIX's");
}
#endif

int main(void)
{
    RUN(test_a_newcomer_on_a_new_file_beside_a_leading_writer);
    RUN(test_a_newcomer_on_a_file_holding_0_beside_a_leading_writer);
    RUN(test_a_newcomer_keeps_a_leading_files_lead);
    return check_summary();
}
