/* test_shared.c: clocks on one state file share one sequence: two in one
 * process, two processes at once, the lead bound a pushed file imposes
 * (waited, refused, or ended by the clock's waiter, also one swapped
 * while threads wait), a deleted or replaced file, and MONOSTAMP_SHARED and monostamp_default_share joining the default
 * clocks of processes.  test_shared_files.c has the state file itself. */
#include <pthread.h> /* winpthreads under mingw-w64 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if !defined(_WIN32)
#include <sys/mman.h>
#include <sys/wait.h>
#endif

#include "check.h"
#include "monostamp.h"
#include "shared_check.h"

static void test_two_clocks_in_one_process_share(void)
{
    const char *path = path_in_dir("pair.state");
    monostamp_clock c1, c2;
    monostamp_options o;
    CHECK_OK(open_shared(&c1, path));
    /* The second is manual and frozen in the past: only the shared state
     * can push its stamps above c1's. */
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.shared_path = path;
    o.max_lead_ns = 0; /* frozen in the past, it leads its source by years */
    CHECK_OK(monostamp_clock_init(&c2, &o));
    int64_t a, b, c;
    CHECK_OK(monostamp_time_ns(&c1, &a));
    CHECK_OK(monostamp_time_ns(&c2, &b));
    CHECK_OK(monostamp_time_ns(&c1, &c));
    CHECK_EQ(b, a + 1);
    CHECK_GT(c, b);
    monostamp_clock_destroy(&c1);
    monostamp_clock_destroy(&c2);
}

static int compare_ns(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

enum { EACH = 200000 };

/* Takes EACH stamps from `c` into `mine`; 0 if each succeeded and
 * followed the one before. */
static int stamp_each(monostamp_clock *c, int64_t *mine)
{
    int bad = 0;
    for (size_t i = 0; i < EACH && !bad; i++)
        bad |= monostamp_time_ns(c, &mine[i]) != 0 || (i > 0 && mine[i] <= mine[i - 1]);
    return bad;
}

#if defined(_WIN32)
/* The same from a clock of its own on `path` (shared_windows.h). */
static int stamp_each_at(const char *path, int64_t *mine)
{
    monostamp_clock c;
    int bad = open_shared(&c, path) != 0 || stamp_each(&c, mine) != 0;
    monostamp_clock_destroy(&c);
    return bad;
}
#endif

static size_t sorted_duplicates(int64_t *all, size_t n)
{
    size_t duplicates = 0;
    qsort(all, n, sizeof *all, compare_ns);
    for (size_t i = 1; i < n; i++)
        duplicates += all[i] == all[i - 1];
    return duplicates;
}

#if defined(_WIN32)
/* The Windows versions of the tests below that fork. */
#include "shared_windows.h"
#endif

#if !defined(_WIN32)
static void test_two_processes_on_one_file(void)
{
    const char *path = path_in_dir("procs.state");
    int64_t *all = mmap(NULL, 2 * EACH * sizeof *all, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(all != MAP_FAILED);
    check_gate gate;
    CHECK_EQ(check_gate_init(&gate), 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    /* Each process opens its own clock on the file after the fork, as
     * unrelated processes would, and checks its own stamps increase.  The
     * gate starts both stamping together, so that they overlap for
     * certain. */
    int64_t *mine = pid == 0 ? all + EACH : all;
    monostamp_clock c;
    int bad = open_shared(&c, path) != 0;
    if (pid == 0)
        bad |= check_gate_wait(&gate) != 0;
    else
        bad |= check_gate_open(&gate, 1) != 0;
    bad |= stamp_each(&c, mine);
    monostamp_clock_destroy(&c);
    if (pid == 0)
        _exit(bad);
    int status;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(bad, 0);
    size_t duplicates = sorted_duplicates(all, 2 * EACH);
    munmap(all, 2 * EACH * sizeof *all);
    CHECK_EQ(duplicates, 0);
}
#endif

static int64_t mono_ms(void)
{
    return monostamp_monotonic_ns() / 1000000;
}

/* A realtime clock with a 10 ms lead bound (wait) on a file that a manual
 * clock pushes `ahead_ns` ahead of the wall clock.  Gives how long the
 * realtime clock's stamp took, and by how much the pushed stamp still led
 * the wall clock when it returned. */
static int stamp_after_push(const char *name, int64_t ahead_ns, int64_t *waited_ms,
                            int64_t *lead_after_ns)
{
    monostamp_clock pusher, waiter;
    monostamp_options o;
    int64_t now = 0, ns, after = 0;
    const char *path = path_in_dir(name);
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.shared_path = path;
    o.has_start_ns = 1;
    /* The file it creates starts its bound above the wall clock: 1 ms,
     * below the push, so the pusher's stamp is its own reading. */
    o.max_lead_ns = 1000000;
    if (monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &now) != 0)
        return -100;
    o.start_ns = now + ahead_ns;
    int64_t pushed = o.start_ns;
    if (monostamp_clock_init(&pusher, &o) != 0 || monostamp_time_ns(&pusher, &ns) != 0)
        return -101;
    monostamp_options_init(&o);
    o.shared_path = path;
    o.max_lead_ns = 10000000;
    o.on_lead = MONOSTAMP_ON_LEAD_WAIT;
    if (monostamp_clock_init(&waiter, &o) != 0)
        return -102;
    int64_t start = mono_ms();
    int rc = monostamp_time_ns(&waiter, &ns);
    *waited_ms = mono_ms() - start;
    if (monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &after) != 0)
        return -103;
    *lead_after_ns = pushed - after;
    monostamp_clock_destroy(&waiter);
    monostamp_clock_destroy(&pusher);
    return rc;
}

static void test_lead_wait_is_bounded(void)
{
    int64_t waited = 0, lead = 0;
    /* Pushed an hour ahead (a state file written ahead, or a step back of
     * the wall clock its anchor never saw): no draw of a bounded clock
     * leads that far, so the stamp neither fails nor sleeps for the hour:
     * the clock goes on from the pushed stamp, its bound counted from
     * there. */
    CHECK_OK(stamp_after_push("hour.state", INT64_C(3600000000000), &waited, &lead));
    CHECK_LT(waited, 1000);
    CHECK_GT(lead, INT64_C(3500000000000));
    /* 60 ms ahead with a 10 ms bound: within what one call may wait (10 ms
     * + 100 ms), as another clock's draws with a larger bound could leave
     * it, so it waits until the wall clock is within 10 ms of the pushed
     * stamp, then stamps.  Judged by that lead, not by the time waited:
     * the setup above eats into the 60 ms (~35 ms of it once under Wine). */
    CHECK_OK(stamp_after_push("near.state", 60000000, &waited, &lead));
    CHECK_LE(lead, 10000000);
    CHECK_LT(waited, 1000);
    /* 200 ms ahead: more than one call may wait; goes on without the wait. */
    CHECK_OK(stamp_after_push("far.state", 200000000, &waited, &lead));
    CHECK_LT(waited, 100);
    CHECK_GT(lead, 100000000);
}

/* What a waiter saw: naps begun and ended, and ends whose token was not
 * the one their beginning gave (a waiter swapped between the two). */
struct nap_tally {
    atomic_int befores, afters, mismatches;
    int stop_after; /* after_nap ends the wait at this many naps; 0: never */
};

static void *count_before(void *context)
{
    struct nap_tally *t = context;
    atomic_fetch_add(&t->befores, 1);
    return t; /* the token after_nap must get back */
}

static int count_after(void *context, void *token)
{
    struct nap_tally *t = context;
    if (token != t)
        atomic_fetch_add(&t->mismatches, 1);
    int afters = atomic_fetch_add(&t->afters, 1) + 1;
    return t->stop_after != 0 && afters >= t->stop_after;
}

/* A realtime clock with a 200 ms bound on a state file that a manual
 * clock pushed `ahead_ns` past the wall clock: its next stamp waits.
 * Sets *pushed to the pusher's stamp; the caller destroys both. */
static void open_behind_a_push(const char *name, int64_t ahead_ns, monostamp_clock *pusher,
                               monostamp_clock *waiter, int64_t *pushed)
{
    monostamp_options o;
    int64_t now = 0;
    const char *path = path_in_dir(name);
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.shared_path = path;
    o.has_start_ns = 1;
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &now));
    o.start_ns = now + ahead_ns;
    o.max_lead_ns = 1000000; /* as in stamp_after_push */
    CHECK_OK(monostamp_clock_init(pusher, &o));
    CHECK_OK(monostamp_time_ns(pusher, pushed));
    monostamp_options_init(&o);
    o.shared_path = path;
    o.max_lead_ns = 200000000;
    CHECK_OK(monostamp_clock_init(waiter, &o));
}

static void test_a_waiter_brackets_each_nap_and_can_end_the_wait(void)
{
    monostamp_clock pusher, waiter;
    int64_t pushed = 0, ns = 42, next = 0;
    /* 450 ms ahead with a 200 ms bound: a wait of ~250 ms (within the
     * bound + 100 ms that one stamp may wait), room for three naps even
     * where a 10 ms nap takes several times that (Wine, a loaded machine). */
    open_behind_a_push("waited.state", 450000000, &pusher, &waiter, &pushed);
    struct nap_tally tally = {.stop_after = 3};
    const monostamp_waiter ends_at_three = {count_before, count_after, &tally};
    CHECK_OK(monostamp_clock_set_waiter(&waiter, &ends_at_three));
    CHECK_RC(monostamp_time_ns(&waiter, &ns), MONOSTAMP_EINTR);
    CHECK_EQ(atomic_load(&tally.befores), 3);
    CHECK_EQ(atomic_load(&tally.afters), 3);
    CHECK_EQ(atomic_load(&tally.mismatches), 0);
    CHECK_EQ(ns, 42);
    /* Nothing was handed out: the pusher's next stamp follows its last. */
    CHECK_OK(monostamp_time_ns(&pusher, &next));
    CHECK_EQ(next, pushed + 1);
    /* A waiter with neither function, then none at all: the wait runs to
     * its end, and the old waiter is not called again. */
    const monostamp_waiter empty = {NULL, NULL, NULL};
    CHECK_OK(monostamp_clock_set_waiter(&waiter, &empty));
    CHECK_OK(monostamp_time_ns(&waiter, &ns));
    CHECK_GT(ns, next);
    CHECK_OK(monostamp_clock_set_waiter(&waiter, NULL));
    CHECK_EQ(atomic_load(&tally.befores), 3);
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EINTR), "interrupted while waiting for the lead bound");
    CHECK_RC(monostamp_clock_set_waiter(NULL, &empty), MONOSTAMP_EINVAL);
    monostamp_clock_destroy(&waiter);
    monostamp_clock_destroy(&pusher);
}

/* A nap that ends far later than asked, as on a loaded machine (here the
 * waiter's after_nap oversleeps): when the call has waited past what one
 * call may, the source has caught up, and the stamp goes out after that
 * one nap instead of failing for the time it took. */
static int oversleep_after(void *context, void *token)
{
    monostamp_sleep_for(400000000, 0); /* past the 200 + 100 ms one call may wait */
    return count_after(context, token);
}

static void test_a_nap_that_ends_late_still_gets_its_stamp(void)
{
    monostamp_clock pusher, waiter;
    int64_t pushed = 0, ns = 0, now = 0;
    /* 450 ms ahead with a 200 ms bound: 250 ms to wait, done in one nap. */
    open_behind_a_push("late.state", 450000000, &pusher, &waiter, &pushed);
    struct nap_tally tally = {0};
    const monostamp_waiter late = {count_before, oversleep_after, &tally};
    CHECK_OK(monostamp_clock_set_waiter(&waiter, &late));
    CHECK_OK(monostamp_time_ns(&waiter, &ns));
    CHECK_GT(ns, pushed);
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &now));
    CHECK_LE(ns - now, 200000000); /* within its bound */
    CHECK_EQ(atomic_load(&tally.befores), 1);
    CHECK_EQ(atomic_load(&tally.afters), 1);
    CHECK_OK(monostamp_clock_set_waiter(&waiter, NULL));
    monostamp_clock_destroy(&waiter);
    monostamp_clock_destroy(&pusher);
}

/* Two threads wait out a push on one clock while a third swaps its waiter
 * back and forth: each nap ends with the waiter it began with. */
struct swap_run {
    monostamp_clock *clock;
    pthread_barrier_t *start;
    atomic_int *waiting; /* threads still in their stamp */
    int64_t ns;
    int rc;
};

static void *wait_out_the_push(void *arg)
{
    struct swap_run *r = arg;
    pthread_barrier_wait(r->start);
    r->rc = monostamp_time_ns(r->clock, &r->ns);
    atomic_fetch_sub(r->waiting, 1);
    return NULL;
}

static void test_a_waiter_swapped_while_threads_wait(void)
{
    monostamp_clock pusher, waiter;
    int64_t pushed = 0;
    /* 400 ms ahead, 200 ms bound: ~200 ms of naps, 100 ms to spare for
     * starting the threads. */
    open_behind_a_push("swapped.state", 400000000, &pusher, &waiter, &pushed);
    struct nap_tally a = {0}, b = {0};
    const monostamp_waiter waiter_a = {count_before, count_after, &a};
    const monostamp_waiter waiter_b = {count_before, count_after, &b};
    CHECK_OK(monostamp_clock_set_waiter(&waiter, &waiter_a));
    pthread_barrier_t start;
    atomic_int waiting = 2;
    CHECK_EQ(pthread_barrier_init(&start, NULL, 3), 0);
    struct swap_run runs[2];
    pthread_t ids[2];
    for (int i = 0; i < 2; i++) {
        runs[i] = (struct swap_run){&waiter, &start, &waiting, 0, 1};
        CHECK_EQ(pthread_create(&ids[i], NULL, wait_out_the_push, &runs[i]), 0);
    }
    pthread_barrier_wait(&start);
    long swaps = 0;
    do {
        CHECK_OK(monostamp_clock_set_waiter(&waiter, swaps % 2 ? &waiter_a : &waiter_b));
        swaps++;
    } while (atomic_load(&waiting) > 0);
    for (int i = 0; i < 2; i++)
        pthread_join(ids[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < 2; i++) {
        CHECK_OK(runs[i].rc);
        CHECK_GT(runs[i].ns, pushed);
    }
    CHECK(runs[0].ns != runs[1].ns);
    int befores = atomic_load(&a.befores) + atomic_load(&b.befores);
    CHECK_GE(befores, 2); /* both threads napped: the overlap was real */
    CHECK_EQ(atomic_load(&a.afters) + atomic_load(&b.afters), befores);
    CHECK_EQ(atomic_load(&a.mismatches) + atomic_load(&b.mismatches), 0);
    CHECK_GT(swaps, 1);
    monostamp_clock_destroy(&waiter);
    monostamp_clock_destroy(&pusher);
}

static int manual_on(monostamp_clock *clock, const char *path, int64_t start_ns)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.has_start_ns = 1;
    o.start_ns = start_ns;
    o.shared_path = path;
    o.max_lead_ns = 0; /* frozen below the file's sequence, it leads its source */
    return monostamp_clock_init(clock, &o);
}

static void test_a_deleted_file_does_not_split_the_sequence(void)
{
    const char *name = "replaced.state";
    char path[256];
    monostamp_clock a, b;
    int64_t now = 0, x, y, last_a = 0, last_b = 0;
    snprintf(path, sizeof path, "%s", path_in_dir(name));
#if defined(_WIN32)
    (void)a, (void)b, (void)now, (void)x, (void)y, (void)last_a, (void)last_b;
    SKIP("a file deleted while mapped keeps its name until the last view goes, under "
         "Wine as on Windows before 10 1809, so no new file can take the path meanwhile");
#endif
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &now));
    CHECK_OK(manual_on(&a, path, now));
    for (int i = 0; i < 5; i++)
        CHECK_OK(monostamp_time_ns(&a, &last_a));
    /* Someone deletes the file; the next opener creates a new one, which
     * starts above the wall clock rather than at "no stamp yet". */
    CHECK_EQ(unlink(path), 0);
    int64_t before_b = 0;
    CHECK_OK(monostamp_source_read(MONOSTAMP_SOURCE_REALTIME, &before_b));
    CHECK_OK(manual_on(&b, path, now));
    CHECK_OK(monostamp_time_ns(&b, &last_b));
    CHECK_GT(last_b, before_b + 1000000);
    /* A still draws from the deleted inode until its next look, a second
     * of its readings on: then it joins the file the path names. */
    CHECK_OK(monostamp_manual_advance(&a, 1100000000));
    CHECK_OK(monostamp_time_ns(&a, &x));
    CHECK_GT(x, last_b);
    /* One sequence again: each clock's stamps follow the other's. */
    for (int i = 0; i < 1000; i++) {
        CHECK_OK(monostamp_time_ns(&b, &y));
        CHECK_GT(y, x);
        CHECK_OK(monostamp_time_ns(&a, &x));
        CHECK_GT(x, y);
    }
    /* A file replaced (not just deleted) is joined the same way, and the
     * join raises the new file above A's stamps. */
    monostamp_clock_destroy(&b);
    CHECK_EQ(unlink(path), 0);
    CHECK_OK(manual_on(&b, path, 0));
    CHECK_OK(monostamp_manual_advance(&a, 1100000000));
    CHECK_OK(monostamp_time_ns(&a, &x));
    CHECK_OK(monostamp_time_ns(&b, &y));
    CHECK_GT(y, x);
    monostamp_clock_destroy(&a);
    monostamp_clock_destroy(&b);
}

/* Runs this binary again as `child` with MONOSTAMP_SHARED=path; the child
 * prints its default clock's stamp (or error code) on stdout. */
#if !defined(_WIN32)
static int run_child(const char *self, const char *path, int64_t *out)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        setenv("MONOSTAMP_SHARED", path, 1);
        execl(self, self, "child", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[64] = {0};
    ssize_t got = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *out = strtoll(buf, NULL, 10);
    return 0;
}

static char self_path[4096];
#endif

static void test_environment_joins_default_clocks(void)
{
    const char *path = path_in_dir("env.state");
    monostamp_clock c;
    int64_t mine, child1, child2;
    /* A manual clock frozen at 0 on the file: each stamp is last + 1. */
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.shared_path = path;
    o.max_lead_ns = 0;
    CHECK_OK(monostamp_clock_init(&c, &o));
    CHECK_OK(run_child(self_path, path, &child1));
    CHECK_OK(monostamp_time_ns(&c, &mine));
    CHECK_OK(run_child(self_path, path, &child2));
    monostamp_clock_destroy(&c);
    CHECK_EQ(mine, child1 + 1);
    CHECK_GT(child2, mine);
    /* A foreign file makes the child's default clock fail: code printed. */
    int64_t code;
    CHECK_OK(run_child(self_path, path_in_dir("foreign"), &code));
    CHECK_EQ(code, MONOSTAMP_EFOREIGN);
}

/* Last: it moves this process's default clock for good. */
static void test_default_clock_moves_onto_a_file(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s", path_in_dir("moved.state"));
    monostamp_clock frozen;
    monostamp_options o;
    monostamp_clock *d;
    int64_t a, b, c, e;

    CHECK_RC(monostamp_default_share(path_in_dir("foreign")), MONOSTAMP_EFOREIGN);
    CHECK_RC(monostamp_default_share(""), MONOSTAMP_EINVAL);
    CHECK_OK(monostamp_default_clock(&d));
    CHECK_EQ(monostamp_clock_is_shared(d), 0);
    /* The default clock runs ahead of the file's other user (frozen at 0)... */
    monostamp_options_init(&o);
    /* The file made by a clock bounded at 1 ms starts 1 ms above the wall
     * clock (a new file starts its creator's bound above it). */
    o.max_lead_ns = 1000000;
    o.shared_path = path;
    CHECK_OK(monostamp_clock_init(&frozen, &o));
    monostamp_clock_destroy(&frozen);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = "UTC";
    o.max_lead_ns = 0;
    CHECK_OK(monostamp_clock_init(&frozen, &o));
    CHECK_OK(monostamp_time_ns(&frozen, &b));
    CHECK_GT(b, 0);
    CHECK_OK(monostamp_set_policy(MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT));
    CHECK_OK(monostamp_sleep_for(3000000, 0)); /* past that margin */
    CHECK_OK(monostamp_default_time_ns(&a));
    CHECK_GT(a, b);
    /* ...and after the move both draw from one sequence above both. */
    CHECK_OK(monostamp_default_share(path));
    CHECK_EQ(monostamp_clock_is_shared(d), 1);
    CHECK_OK(monostamp_time_ns(&frozen, &c));
    CHECK_EQ(c, a + 1);
    CHECK_OK(monostamp_default_time_ns(&e));
    CHECK_GT(e, c);
    monostamp_clock_destroy(&frozen);
}

static int child_main(void)
{
    int64_t ns;
    int rc = monostamp_default_time_ns(&ns);
    printf("%lld\n", (long long)(rc == 0 ? ns : rc));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child_main();
#if defined(_WIN32)
    if (argc > 2 && strcmp(argv[1], "procs") == 0)
        return procs_child(argv[2]);
    DWORD n = GetModuleFileNameA(NULL, self_path, sizeof self_path);
    if (n == 0 || n >= sizeof self_path ||
        check_make_temp_dir(dir, sizeof dir, "monostamp-test") != 0) {
        perror("test_shared setup");
        return 1;
    }
#else
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0 || check_make_temp_dir(dir, sizeof dir, "monostamp-test") != 0) {
        perror("test_shared setup");
        return 1;
    }
    self_path[n] = '\0';
#endif
    /* Not a state file, for the tests that want one refused (the refusal
     * itself is tested in test_shared_files.c). */
    char foreign[128];
    memset(foreign, 'x', sizeof foreign);
    write_file(path_in_dir("foreign"), foreign, sizeof foreign);
    RUN(test_two_clocks_in_one_process_share);
    RUN(test_two_processes_on_one_file);
    RUN(test_lead_wait_is_bounded);
    RUN(test_a_waiter_brackets_each_nap_and_can_end_the_wait);
    RUN(test_a_waiter_swapped_while_threads_wait);
    RUN(test_a_nap_that_ends_late_still_gets_its_stamp);
    RUN(test_a_deleted_file_does_not_split_the_sequence);
    RUN(test_environment_joins_default_clocks);
    RUN(test_default_clock_moves_onto_a_file);
    if (check_remove_tree(dir) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
