/* test_shared_attacks.c: one sequence whatever is done to a state file
 * while processes stamp on it: its directory renamed away and
 * recreated (in /tmp and in /dev/shm), swapped for a symbolic link, its
 * value overwritten in place with 0, the file truncated, and two
 * hand-made files holding 0 renamed over it one after the other while a
 * process sleeps; and what the truncation guard does with a SIGBUS that is
 * not its own.
 *
 * WRITERS processes open a µs-policy clock each on the relative path
 * "d/state" (so the directory is resolved against the working directory
 * at open) and stamp in bursts from a common start (check_gate).  Once
 * every writer has made a quarter of its stamps the parent strikes; a
 * newcomer then opens the path and stamps too.  Every writer goes on until
 * it has made EACH stamps and its readings have passed the strike by
 * AFTER_NS, so that each has looked at the path (every 5 ms of readings)
 * after it.  Then: no process failed a stamp or made one at or below its
 * own previous one, none was killed by a signal, and the union of all
 * stamps (>= 2 M) holds no value twice. */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "monostamp.h"

#if !defined(_WIN32)
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WRITERS = 4, EACH = 500000, BURST = 1000, NEWCOMER = 100000, IDLE_BLOCK = 300000,
       IDLE_AFTER = 20000, SLOTS = WRITERS + 2, CAP = 600000 };
enum { NEWCOMER_SLOT = WRITERS, IDLE_SLOT = WRITERS + 1 };
#define AFTER_NS INT64_C(60000000)
#define LEAD_BOUND_NS INT64_C(1000000000) /* the default, which the clocks keep */

enum attack { DIRECTORY_REPLACED, DIRECTORY_SYMLINKED, OVERWRITTEN_WITH_0, TRUNCATED,
              DOUBLE_RENAME_OVER };

/* Shared by the parent and every child (an anonymous MAP_SHARED map). */
struct run {
    _Atomic int64_t count[SLOTS];
    _Atomic int struck;           /* the attack is done */
    _Atomic int64_t struck_at;    /* monotonic */
    _Atomic int failed[SLOTS];    /* 1: a stamp failed, 2: went back, 3: clocks disagreed */
    _Atomic int rc[SLOTS];        /* the failing stamp's code */
    int64_t stamps[SLOTS][CAP];
};

static char base[256];

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
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

/* One stamp into the slot's record, checked against the one before. */
static void record(struct run *run, int slot, monostamp_clock *clock, size_t *n)
{
    int64_t ns = 0;
    int rc = monostamp_time_ns(clock, &ns);
    if (rc != 0) {
        atomic_store(&run->rc[slot], rc);
        atomic_store(&run->failed[slot], 1);
        return;
    }
    if (*n > 0 && ns <= run->stamps[slot][*n - 1])
        atomic_store(&run->failed[slot], 2);
    if (*n < CAP)
        run->stamps[slot][(*n)++] = ns;
}

/* A writer: bursts until EACH stamps and AFTER_NS of readings past the
 * strike; a nap between bursts keeps the sequence (four writers' µs
 * stamps) from running ahead of real time. */
static void writer(struct run *run, int slot, check_gate *gate)
{
    monostamp_clock clock;
    if (chdir(base) != 0 || open_clock(&clock, "d/state") != 0 || check_gate_wait(gate) != 0)
        _exit(1);
    size_t n = 0;
    for (;;) {
        for (int i = 0; i < BURST && n < CAP; i++)
            record(run, slot, &clock, &n);
        atomic_store(&run->count[slot], (int64_t)n);
        if (n + BURST > CAP)
            break;
        if (n >= EACH && atomic_load(&run->struck) &&
            monostamp_monotonic_ns() - atomic_load(&run->struck_at) > AFTER_NS)
            break;
        nap_ms(5);
    }
    monostamp_clock_destroy(&clock);
    _exit(0);
}

/* The newcomer: opens the path after the strike, stamps, leaves. */
static void newcomer(struct run *run)
{
    monostamp_clock clock;
    if (chdir(base) != 0)
        _exit(1);
    /* A truncated file is no state file to a newcomer (MONOSTAMP_EFOREIGN)
     * until a process that had it mapped repairs it, at its next stamp. */
    int rc, tries = 0;
    while ((rc = open_clock(&clock, "d/state")) == MONOSTAMP_EFOREIGN && tries++ < 2000)
        nap_ms(1);
    if (rc != 0)
        _exit(1);
    size_t n = 0;
    while (n < NEWCOMER) {
        for (int i = 0; i < BURST; i++)
            record(run, NEWCOMER_SLOT, &clock, &n);
        atomic_store(&run->count[NEWCOMER_SLOT], (int64_t)n);
        nap_ms(5);
    }
    monostamp_clock_destroy(&clock);
    _exit(0);
}

/* The sleeper of the double rename-over: two clocks on the path; a block
 * of IDLE_BLOCK µs stamps (leading real time by most of 300 ms), then it
 * sleeps on `wake` until both files are in place, and stamps from its two
 * clocks in turn: each stamp above the one before, and the two clocks
 * never further apart than the lead bound. */
static void sleeper(struct run *run, int wake_fd)
{
    monostamp_clock a, b;
    char byte;
    if (chdir(base) != 0 || open_clock(&a, "d/state") != 0 || open_clock(&b, "d/state") != 0)
        _exit(1);
    size_t n = 0;
    int64_t first = 0, step = 0;
    if (monostamp_clock_take(&a, IDLE_BLOCK, &first, &step) != 0)
        _exit(1);
    for (int i = 0; i < IDLE_BLOCK; i++)
        run->stamps[IDLE_SLOT][n++] = first + i * step;
    atomic_store(&run->count[IDLE_SLOT], (int64_t)n);
    if (read(wake_fd, &byte, 1) != 1)
        _exit(1);
    for (int i = 0; i < IDLE_AFTER; i++) {
        record(run, IDLE_SLOT, i % 2 ? &b : &a, &n);
        /* The first stamp after the sleep is as far above the block as
         * the sleep was long: it is held to the lead bound of real time
         * (1 ms for the anchor's drift from the reading), the rest to
         * the bound between the two clocks. */
        int64_t stamp = run->stamps[IDLE_SLOT][n - 1];
        int64_t gap = stamp - run->stamps[IDLE_SLOT][n - 2];
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        if (stamp - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec) > LEAD_BOUND_NS + 1000000 ||
            (i > 0 && gap > LEAD_BOUND_NS))
            atomic_store(&run->failed[IDLE_SLOT], 3);
    }
    atomic_store(&run->count[IDLE_SLOT], (int64_t)n);
    monostamp_clock_destroy(&a);
    monostamp_clock_destroy(&b);
    _exit(0);
}

/* A state file written by hand, its sequence at 0. */
static int write_state_holding_0(const char *path)
{
    unsigned char bytes[128] = {0};
    uint32_t version = 1, size = sizeof bytes;
    memcpy(bytes, "monostmp", 8);
    memcpy(bytes + 8, &version, 4);
    memcpy(bytes + 12, &size, 4);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -1;
    int ok = write(fd, bytes, sizeof bytes) == (ssize_t)sizeof bytes;
    return close(fd) == 0 && ok ? 0 : -1;
}

/* Waits until every writer has made `at_least` stamps. */
static void wait_for_writers(struct run *run, int64_t at_least)
{
    for (int w = 0; w < WRITERS; w++)
        while (atomic_load(&run->count[w]) < at_least && !atomic_load(&run->failed[w]))
            nap_ms(2);
}

/* Waits until every writer has made `more` stamps past the counts in
 * `from` (bursts, and so checks of the path, after whatever came before). */
static void wait_for_progress(struct run *run, const int64_t *from, int64_t more)
{
    for (int w = 0; w < WRITERS; w++)
        while (atomic_load(&run->count[w]) < from[w] + more && !atomic_load(&run->failed[w]) &&
               atomic_load(&run->count[w]) + BURST <= CAP)
            nap_ms(2);
}

static int strike(struct run *run, enum attack attack, int wake_fd)
{
    char path[400], other[400];
    int rc = 0;
    switch (attack) {
    case DIRECTORY_REPLACED:
        snprintf(path, sizeof path, "%s/d", base);
        snprintf(other, sizeof other, "%s/d.away", base);
        rc = rename(path, other) || mkdir(path, 0700);
        break;
    case DIRECTORY_SYMLINKED:
        snprintf(path, sizeof path, "%s/d", base);
        snprintf(other, sizeof other, "%s/d.away", base);
        rc = rename(path, other);
        snprintf(other, sizeof other, "%s/d.elsewhere", base);
        rc = rc || mkdir(other, 0700) || symlink("d.elsewhere", path);
        break;
    case OVERWRITTEN_WITH_0: {
        int64_t zero = 0;
        snprintf(path, sizeof path, "%s/d/state", base);
        int fd = open(path, O_WRONLY);
        rc = fd < 0 || pwrite(fd, &zero, sizeof zero, 64) != (ssize_t)sizeof zero;
        if (fd >= 0)
            close(fd);
        break;
    }
    case TRUNCATED:
        snprintf(path, sizeof path, "%s/d/state", base);
        rc = truncate(path, 0);
        break;
    case DOUBLE_RENAME_OVER: {
        int64_t from[WRITERS];
        snprintf(path, sizeof path, "%s/d/state", base);
        snprintf(other, sizeof other, "%s/d/first", base);
        rc = write_state_holding_0(other) || rename(other, path);
        /* The writers move onto the first file, retiring the original. */
        for (int w = 0; w < WRITERS; w++)
            from[w] = atomic_load(&run->count[w]);
        wait_for_progress(run, from, 3 * BURST);
        snprintf(other, sizeof other, "%s/d/second", base);
        rc = rc || write_state_holding_0(other) || rename(other, path);
        /* The sleeper wakes on its original state, retired, with the
         * second file in place. */
        rc = rc || write(wake_fd, "w", 1) != 1;
        break;
    }
    }
    if (run != NULL) {
        atomic_store(&run->struck_at, monostamp_monotonic_ns());
        atomic_store(&run->struck, 1);
    }
    return rc;
}

static int compare_ns(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Runs the writers (and the newcomer, and for the double rename-over the
 * sleeper) through `attack` in a fresh directory under `root`. */
static void run_attack(enum attack attack, const char *root)
{
    char path[400];
    check_gate gate;
    int wake[2] = {-1, -1};
    snprintf(base, sizeof base, "%s/monostamp-attack-XXXXXX", root);
    CHECK(mkdtemp(base) != NULL);
    snprintf(path, sizeof path, "%s/d", base);
    CHECK_EQ(mkdir(path, 0700), 0);
    struct run *run = mmap(NULL, sizeof *run, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                           -1, 0);
    CHECK(run != MAP_FAILED);
    if (run == MAP_FAILED)
        return;
    CHECK_EQ(check_gate_init(&gate), 0);
    CHECK_EQ(pipe(wake), 0);
    pid_t pids[SLOTS] = {0};
    for (int w = 0; w < WRITERS; w++)
        if ((pids[w] = fork()) == 0)
            writer(run, w, &gate);
    if (attack == DOUBLE_RENAME_OVER) {
        if ((pids[IDLE_SLOT] = fork()) == 0) {
            /* Not a writer: the gate's ends closed, or it never opens. */
            close(gate.ready[0]);
            close(gate.ready[1]);
            close(gate.go[0]);
            close(gate.go[1]);
            close(wake[1]);
            sleeper(run, wake[0]);
        }
        /* It has made its block before the writers start. */
        while (atomic_load(&run->count[IDLE_SLOT]) < IDLE_BLOCK)
            nap_ms(2);
    }
    close(wake[0]);
    CHECK_EQ(check_gate_open(&gate, WRITERS), 0);
    wait_for_writers(run, EACH / 4);
    CHECK_EQ(strike(run, attack, wake[1]), 0);
    close(wake[1]);
    if ((pids[NEWCOMER_SLOT] = fork()) == 0)
        newcomer(run);

    int killed = 0, bad_exit = 0;
    for (int s = 0; s < SLOTS; s++) {
        int status = 0;
        if (pids[s] <= 0)
            continue;
        CHECK_EQ(waitpid(pids[s], &status, 0), pids[s]);
        if (WIFSIGNALED(status)) {
            printf("  slot %d killed by signal %d\n", s, WTERMSIG(status));
            killed++;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            bad_exit++;
        }
    }
    CHECK_EQ(killed, 0);
    CHECK_EQ(bad_exit, 0);
    int64_t *flat = &run->stamps[0][0]; /* all slots, one array */
    size_t total = 0;
    for (int s = 0; s < SLOTS; s++) {
        int failed = atomic_load(&run->failed[s]);
        if (failed)
            printf("  slot %d: failure %d (code %d)\n", s, failed, atomic_load(&run->rc[s]));
        CHECK_EQ(failed, 0);
        size_t n = (size_t)atomic_load(&run->count[s]);
        memmove(flat + total, run->stamps[s], n * sizeof(int64_t));
        total += n;
    }
    CHECK_GE(total, (size_t)2000000);
    qsort(flat, total, sizeof(int64_t), compare_ns);
    size_t equal = 0;
    for (size_t i = 1; i < total; i++)
        equal += flat[i] == flat[i - 1];
    if (equal != 0)
        printf("  %zu equal stamps in %zu\n", equal, total);
    CHECK_EQ(equal, 0);
    munmap(run, sizeof *run);
    check_remove_tree(base);
}

static int under_tsan(void)
{
    const char *tsan = getenv("MONOSTAMP_TEST_TSAN");
    return tsan != NULL && tsan[0] != '\0';
}

#define FORKING(name, attack, root)                         \
    static void name(void)                                  \
    {                                                       \
        if (under_tsan())                                   \
            SKIP("TSan and fork do not mix");               \
        run_attack(attack, root);                           \
    }

FORKING(test_directory_renamed_away_and_recreated, DIRECTORY_REPLACED, "/tmp")
FORKING(test_directory_swapped_for_a_symlink, DIRECTORY_SYMLINKED, "/tmp")
FORKING(test_value_overwritten_in_place_with_0, OVERWRITTEN_WITH_0, "/tmp")
FORKING(test_file_truncated, TRUNCATED, "/tmp")
FORKING(test_double_rename_over_onto_files_holding_0, DOUBLE_RENAME_OVER, "/tmp")

static void test_directory_renamed_away_and_recreated_in_dev_shm(void)
{
    struct stat st;
    if (under_tsan())
        SKIP("TSan and fork do not mix");
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode) || access("/dev/shm", W_OK) != 0)
        SKIP("no writable /dev/shm");
    run_attack(DIRECTORY_REPLACED, "/dev/shm");
}

/* ------------------------------------------ in one process, with threads */

/* The same attacks on two threads' clocks in this process (so that TSan
 * sees the guard and the raise): each stamp above the one before, none
 * failed, none equal, and the two clocks never a lead bound apart. */
struct stamper {
    monostamp_clock *clock;
    _Atomic int *go;
    _Atomic int *stop;
    int64_t *stamps;
    size_t n;
    int bad;
};

enum { THREAD_CAP = 400000 };

static void *stamp_until_stopped(void *arg)
{
    struct stamper *s = arg;
    while (!atomic_load(s->go))
        ;
    while (!atomic_load(s->stop) && s->n < THREAD_CAP) {
        int64_t ns;
        if (monostamp_time_ns(s->clock, &ns) != 0 || (s->n > 0 && ns <= s->stamps[s->n - 1]))
            s->bad = 1;
        s->stamps[s->n++] = ns;
    }
    return NULL;
}

static void threads_through(enum attack attack)
{
    char path[400];
    monostamp_clock a, b;
    _Atomic int go = 0, stop = 0;
    pthread_t ids[2];
    struct stamper s[2];
    int64_t *all = malloc(2 * THREAD_CAP * sizeof *all);
    CHECK(all != NULL);
    if (all == NULL)
        return;
    snprintf(base, sizeof base, "/tmp/monostamp-threads-XXXXXX");
    CHECK(mkdtemp(base) != NULL);
    snprintf(path, sizeof path, "%s/d", base);
    CHECK_EQ(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/d/state", base);
    CHECK_OK(open_clock(&a, path));
    CHECK_OK(open_clock(&b, path));
    for (int t = 0; t < 2; t++) {
        s[t] = (struct stamper){t ? &b : &a, &go, &stop, all + t * THREAD_CAP, 0, 0};
        CHECK_EQ(pthread_create(&ids[t], NULL, stamp_until_stopped, &s[t]), 0);
    }
    atomic_store(&go, 1);
    nap_ms(20);
    CHECK_EQ(strike(NULL, attack, -1), 0);
    nap_ms(40);
    atomic_store(&stop, 1);
    for (int t = 0; t < 2; t++) {
        pthread_join(ids[t], NULL);
        CHECK_EQ(s[t].bad, 0);
    }
    int64_t x, y;
    CHECK_OK(monostamp_time_ns(&a, &x));
    CHECK_OK(monostamp_time_ns(&b, &y));
    CHECK_LT(y - x, LEAD_BOUND_NS);
    monostamp_clock_destroy(&a);
    monostamp_clock_destroy(&b);
    memmove(all + s[0].n, all + THREAD_CAP, s[1].n * sizeof *all);
    size_t total = s[0].n + s[1].n, equal = 0;
    qsort(all, total, sizeof *all, compare_ns);
    for (size_t i = 1; i < total; i++)
        equal += all[i] == all[i - 1];
    CHECK_EQ(equal, 0);
    free(all);
    check_remove_tree(base);
}

static void test_threads_through_truncation(void)
{
    threads_through(TRUNCATED);
}

static void test_threads_through_overwrite_with_0(void)
{
    threads_through(OVERWRITTEN_WITH_0);
}

static void test_threads_through_directory_replaced(void)
{
    threads_through(DIRECTORY_REPLACED);
}

/* ----------------------------------------------- a SIGBUS not the guard's */

static sigjmp_buf escape;
static volatile sig_atomic_t theirs;

static void their_handler(int sig)
{
    (void)sig;
    theirs++;
    siglongjmp(escape, 1);
}

/* A handler installed before a shared clock still gets every SIGBUS that
 * is not the guard's (a fault on a file of its own, a kill()), and is
 * back in place once the last shared clock is gone. */
static void test_a_sigbus_not_ours_reaches_the_handler_before(void)
{
    struct sigaction mine, now;
    monostamp_clock clock;
    char path[400];
    memset(&mine, 0, sizeof mine);
    mine.sa_handler = their_handler;
    sigemptyset(&mine.sa_mask);
    struct sigaction before;
    CHECK_EQ(sigaction(SIGBUS, &mine, &before), 0);
    snprintf(base, sizeof base, "/tmp/monostamp-sigbus-XXXXXX");
    CHECK(mkdtemp(base) != NULL);
    snprintf(path, sizeof path, "%s/state", base);
    CHECK_OK(open_clock(&clock, path));
    /* A file of "the application's", mapped and truncated: its fault. */
    snprintf(path, sizeof path, "%s/theirs", base);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    CHECK(fd >= 0);
    CHECK_EQ(ftruncate(fd, 4096), 0);
    volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(p != MAP_FAILED);
    CHECK_EQ(ftruncate(fd, 0), 0);
    if (sigsetjmp(escape, 1) == 0)
        p[0] = 1; /* SIGBUS: their handler jumps back */
    CHECK_EQ(theirs, 1);
    if (sigsetjmp(escape, 1) == 0)
        kill(getpid(), SIGBUS);
    CHECK_EQ(theirs, 2);
    int64_t ns;
    CHECK_OK(monostamp_time_ns(&clock, &ns));
    monostamp_clock_destroy(&clock);
    CHECK_EQ(sigaction(SIGBUS, NULL, &now), 0);
    CHECK(now.sa_handler == their_handler);
    munmap((void *)p, 4096);
    close(fd);
    sigaction(SIGBUS, &before, NULL);
    check_remove_tree(base);
}

/* One process, one thread, step by step: the stamp after a truncation
 * goes on above the one before, on the same file, repaired. */
static void test_the_stamp_after_a_truncation_goes_on(void)
{
    monostamp_clock clock, joiner;
    char path[400];
    int64_t before, after, joined;
    struct stat st;
    snprintf(base, sizeof base, "/tmp/monostamp-trunc-XXXXXX");
    CHECK(mkdtemp(base) != NULL);
    snprintf(path, sizeof path, "%s/state", base);
    CHECK_OK(open_clock(&clock, path));
    CHECK_OK(monostamp_time_ns(&clock, &before));
    CHECK_EQ(truncate(path, 0), 0);
    CHECK_OK(monostamp_time_ns(&clock, &after));
    CHECK_GT(after, before);
    CHECK_EQ(stat(path, &st), 0);
    CHECK_EQ(st.st_size, 128);
    /* A newcomer joins the repaired file, above both. */
    CHECK_OK(open_clock(&joiner, path));
    CHECK_OK(monostamp_time_ns(&joiner, &joined));
    CHECK_GT(joined, after);
    monostamp_clock_destroy(&joiner);
    monostamp_clock_destroy(&clock);
    check_remove_tree(base);
}

#else
static void test_the_stamp_after_a_truncation_goes_on(void)
{
    SKIP("no fork(), and Windows cannot truncate a mapped file");
}
#endif

int main(void)
{
    RUN(test_the_stamp_after_a_truncation_goes_on);
#if !defined(_WIN32)
    RUN(test_a_sigbus_not_ours_reaches_the_handler_before);
    RUN(test_threads_through_truncation);
    RUN(test_threads_through_overwrite_with_0);
    RUN(test_threads_through_directory_replaced);
    RUN(test_directory_renamed_away_and_recreated);
    RUN(test_directory_renamed_away_and_recreated_in_dev_shm);
    RUN(test_directory_swapped_for_a_symlink);
    RUN(test_value_overwritten_in_place_with_0);
    RUN(test_file_truncated);
    RUN(test_double_rename_over_onto_files_holding_0);
#endif
    return check_summary();
}
