/*
 * bench_preload.c: clock_gettime(CLOCK_REALTIME) answered by
 * libmonostamp_preload.so on a shared state file, against libc's own call
 * (its vDSO read, reached through dlopen("libc.so.6"), past the preload),
 * side by side in one process: rounds alternate the two loops and the
 * median of the paired ratios is reported, so a busy neighbour slows both
 * halves of a round.  Run by `make bench-preload` under the preload; the
 * target is <= 1.5x.  No assertion: the figures are printed.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

typedef int (*clock_fn)(clockid_t, struct timespec *);
enum { ROUNDS = 15 };

static int64_t sink;

static double loop_ns(clock_fn f, long n)
{
    struct timespec ts;
    int64_t t0 = mono_now(), acc = 0;
    for (long i = 0; i < n; i++) {
        f(CLOCK_REALTIME, &ts);
        acc += ts.tv_nsec;
    }
    sink += acc;
    return (double)(mono_now() - t0) / (double)n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    long n = getenv("MONOSTAMP_BENCH_QUICK") ? 300000 : 2000000;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    clock_fn own = libc != NULL ? (clock_fn)(uintptr_t)dlsym(libc, "clock_gettime") : NULL;
    if (own == NULL || dlsym(RTLD_DEFAULT, "monostamp_preload_next_clock_gettime") == NULL) {
        fprintf(stderr, "bench_preload: run it with libmonostamp_preload.so in LD_PRELOAD\n");
        return 1;
    }
    clock_fn preloaded = clock_gettime; /* the PLT's binding: the preload */
    double ratio[ROUNDS], best_own = 1e9, best_pre = 1e9;
    print_load("before");
    for (int r = 0; r < ROUNDS; r++) {
        double a = loop_ns(own, n), b = loop_ns(preloaded, n);
        ratio[r] = b / a;
        best_own = a < best_own ? a : best_own;
        best_pre = b < best_pre ? b : best_pre;
    }
    qsort(ratio, ROUNDS, sizeof *ratio, cmp);
    printf("| call | best ns | median ratio | target |\n|---|---:|---:|---|\n");
    printf("| libc clock_gettime(CLOCK_REALTIME) (vDSO) | %.1f | 1 | |\n", best_own);
    printf("| preloaded clock_gettime(CLOCK_REALTIME), shared file | %.1f | %.2f | <=1.5 |\n",
           best_pre, ratio[ROUNDS / 2]);
    return 0;
}
