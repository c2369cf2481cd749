/*
 * bench_preload.c: clock_gettime(CLOCK_REALTIME) answered by
 * libmonostamp_preload.so on a shared state file, against libc's own call
 * (its vDSO read, reached through dlopen("libc.so.6"), past the preload),
 * side by side in one process: rounds alternate the two loops and the
 * median of the paired ratios is reported, so a busy neighbour slows both
 * halves of a round.  Two rows, one run (`make bench-preload`):
 *
 *   - grain ns (the default): a tight loop of calls;
 *   - grain us (MONOSTAMP_GRAIN=us, this program run again under it): one
 *     call every 2 µs or more, the spacing at which a whole-µs reader gets
 *     fresh readings rather than forced increments (a tighter loop is held
 *     to one µs per µs by the lead bound: that is a wait, not a cost).  The
 *     spacing is spun on the monotonic clock, outside the timed part; each
 *     call is timed alone, and the cost of timing nothing is subtracted.
 *
 * The target of both is <= 1.5x libc's.  No assertion: the figures are
 * printed.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

typedef int (*clock_fn)(clockid_t, struct timespec *);
enum { ROUNDS = 15, SPACING_NS = 2000 };

static int64_t sink;
static clock_fn own; /* libc's, past the preload */

static inline int64_t mono(void)
{
    struct timespec ts;
    own(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static double loop_ns(clock_fn f, long n)
{
    struct timespec ts;
    int64_t t0 = mono(), acc = 0;
    for (long i = 0; i < n; i++) {
        f(CLOCK_REALTIME, &ts);
        acc += ts.tv_nsec;
    }
    sink += acc;
    return (double)(mono() - t0) / (double)n;
}

/* The mean time of one call made every SPACING_NS, the time of two
 * back-to-back monotonic reads included; f NULL times nothing. */
static double spaced_ns(clock_fn f, long n)
{
    struct timespec ts;
    int64_t total = 0, acc = 0;
    for (long i = 0; i < n; i++) {
        int64_t t0 = mono();
        if (f != NULL) {
            f(CLOCK_REALTIME, &ts);
            acc += ts.tv_nsec;
        }
        int64_t t1 = mono();
        total += t1 - t0;
        while (mono() - t0 < SPACING_NS)
            ;
    }
    sink += acc;
    return (double)total / (double)n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, ROUNDS, sizeof *v, cmp);
    return v[ROUNDS / 2];
}

static void tight(clock_fn preloaded, long n)
{
    double ratio[ROUNDS], best_own = 1e9, best_pre = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        double a = loop_ns(own, n), b = loop_ns(preloaded, n);
        ratio[r] = b / a;
        best_own = a < best_own ? a : best_own;
        best_pre = b < best_pre ? b : best_pre;
    }
    printf("| libc clock_gettime(CLOCK_REALTIME) (vDSO), tight loop | %.1f | 1 | |\n", best_own);
    printf("| preloaded, grain ns, shared file, tight loop | %.1f | %.2f | <=1.5 |\n", best_pre,
           median(ratio));
}

static void spaced(clock_fn preloaded, long n)
{
    double ratio[ROUNDS], best_own = 1e9, best_pre = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        double none = spaced_ns(NULL, n);
        double a = spaced_ns(own, n) - none, b = spaced_ns(preloaded, n) - none;
        /* A round whose empty timing outweighed a call says nothing. */
        ratio[r] = a > 0 && b > 0 ? b / a : 1e9;
        best_own = a > 0 && a < best_own ? a : best_own;
        best_pre = b > 0 && b < best_pre ? b : best_pre;
    }
    printf("| libc clock_gettime(CLOCK_REALTIME) (vDSO), one call per %d ns | %.1f | 1 | |\n",
           SPACING_NS, best_own);
    printf("| preloaded, grain us, shared file, one call per %d ns | %.1f | %.2f | <=1.5 |\n",
           SPACING_NS, best_pre, median(ratio));
}

int main(int argc, char **argv)
{
    int quick = getenv("MONOSTAMP_BENCH_QUICK") != NULL;
    const char *grain = getenv("MONOSTAMP_GRAIN");
    int us = grain != NULL && strcmp(grain, "us") == 0;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void *found = libc != NULL ? dlsym(libc, "clock_gettime") : NULL;
    if (found == NULL || dlsym(RTLD_DEFAULT, "monostamp_preload_next_clock_gettime") == NULL) {
        fprintf(stderr, "bench_preload: run it with libmonostamp_preload.so in LD_PRELOAD\n");
        return 1;
    }
    memcpy(&own, &found, sizeof own); /* POSIX's void * to function pointer */
    clock_fn preloaded = clock_gettime; /* the PLT's binding: the preload */
    if (us) {
        spaced(preloaded, quick ? 2000 : 20000);
        return 0;
    }
    print_load("before");
    printf("| call | best ns | median ratio | target |\n|---|---:|---:|---|\n");
    tight(preloaded, quick ? 300000 : 2000000);
    fflush(stdout);
    /* The grain is read once, when the library loads: the us row is this
     * program again, in a child run with MONOSTAMP_GRAIN=us. */
    pid_t pid = fork();
    if (pid == 0) {
        setenv("MONOSTAMP_GRAIN", "us", 1);
        execv("/proc/self/exe", argv);
        perror("bench_preload: exec");
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_preload: the grain us run failed\n");
        return 1;
    }
    print_load("after");
    (void)argc;
    return 0;
}
