/*
 * bench_sampling.c: stamps per second and how many are distinct, per source
 * x policy, and the time for 10 M stamps.  The tables repeat, from C, those
 * of a squeak-dev thread (May 2020) on Squeak's DateAndTime clock.
 *
 * 1. Sampling: stamps taken in a tight loop for one second, and how many
 *    are distinct, per source x policy, beside the plain C calls the
 *    Squeak VM's time primitives stand for.  Distinct values are counted as the
 *    sequence's strict increases plus one, which is exact for a sequence
 *    that never goes backwards; a row whose sequence went backwards says
 *    so and its count is then a bound.  The last value's distance from
 *    CLOCK_REALTIME shows how far the increment policies ran ahead.
 * 2. Speed: the time for 10 M stamps (monostamp_now: instant and offset)
 *    per source x policy, the thread's `10000000 timesRepeat: [DateAndTime
 *    now]`; the ratio is against acceptPlatformTime on the same source.
 *
 *   MONOSTAMP_BENCH_QUICK=1   0.2 s windows and 1 M stamps (figures then
 *                             scaled back to 1 s and 10 M)
 *
 * No assertion: the figures are printed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "bench_util.h"
#include "monostamp.h"


/* One reading, in ns since the epoch, of what a row samples. */
typedef int (*reader)(void *ctx, int64_t *out_ns);

static int read_gettimeofday(void *ctx, int64_t *out_ns)
{
    (void)ctx;
    struct timeval tv;
    int rc = gettimeofday(&tv, NULL);
    *out_ns = ((int64_t)tv.tv_sec * 1000000 + tv.tv_usec) * 1000;
    return rc;
}

/* Squeak's "DTL" primitive: gettimeofday and the offset from localtime. */
static int read_gettimeofday_localtime(void *ctx, int64_t *out_ns)
{
    (void)ctx;
    struct timeval tv;
    struct tm tm;
    int rc = gettimeofday(&tv, NULL);
    time_t t = tv.tv_sec;
    if (localtime_r(&t, &tm) == NULL)
        return -1;
    *out_ns = ((int64_t)tv.tv_sec * 1000000 + tv.tv_usec) * 1000;
    return rc;
}

static int read_clock_id(void *ctx, int64_t *out_ns)
{
    const clockid_t *id = ctx;
    struct timespec ts;
    int rc = clock_gettime(*id, &ts);
    *out_ns = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
    return rc;
}

static int read_monostamp_now(void *ctx, int64_t *out_ns)
{
    monostamp_stamp st;
    int rc = monostamp_now(ctx, &st);
    *out_ns = st.utc_ns;
    return rc;
}

typedef struct sampling {
    uint64_t samples, unique_ns, unique_us;
    int64_t lead_ns; /* the last value minus CLOCK_REALTIME read just after */
    int monotonic;
    int failed;
} sampling;

static int64_t realtime_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Samples for `window_ns` of real (monotonic) time.  The Squeak thread
 * stopped on the stamp's own value instead; that is misleading for the
 * increment policies, whose stamps run ahead of the clock when calls come
 * faster than one per increment.  The clock is checked every 256 samples so the
 * check costs little. */
static sampling sample_for(reader read, void *ctx, int64_t window_ns)
{
    sampling r = { 0, 0, 0, 0, 1, 0 };
    int64_t prev;
    if (read(ctx, &prev) != 0) {
        r.failed = 1;
        return r;
    }
    int64_t stop = mono_now() + window_ns;
    int64_t prev_us = prev / 1000;
    r.samples = r.unique_ns = r.unique_us = 1;
    do {
        for (int i = 0; i < 256; i++) {
            int64_t v;
            if (read(ctx, &v) != 0) {
                r.failed = 1;
                return r;
            }
            if (v > prev)
                r.unique_ns++;
            else if (v < prev)
                r.monotonic = 0;
            /* Microseconds as Squeak's clock counts them, floored. */
            int64_t us = v >= 0 ? v / 1000 : -((-v + 999) / 1000);
            if (us > prev_us)
                r.unique_us++;
            prev_us = us;
            prev = v;
        }
        r.samples += 256;
    } while (mono_now() < stop);
    r.lead_ns = prev - realtime_now();
    return r;
}

static void print_sampling(const char *name, sampling r, double scale)
{
    if (r.failed) {
        printf("| %s | failed | | | | |\n", name);
        return;
    }
    printf("| %s | %.0f | %.0f | %.0f | %.1f | %s |\n", name, (double)r.samples * scale,
           (double)r.unique_ns * scale, (double)r.unique_us * scale,
           (double)r.lead_ns / 1000.0, r.monotonic ? "" : "went backwards: counts are bounds");
}

static int make_clock(monostamp_clock *c, int source, int policy)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = source;
    o.policy = policy;
    int rc = monostamp_clock_init(c, &o);
    if (rc != MONOSTAMP_OK)
        fprintf(stderr, "clock %s/%s: %s\n", monostamp_source_name(source),
                monostamp_policy_name(policy), monostamp_strerror(rc));
    return rc;
}

/* Results are folded into this so that no call can be optimised away. */
static volatile int64_t sink;

/* ms for `n` stamps, -1 on failure. */
static double time_stamps(reader read, void *ctx, int64_t n)
{
    int64_t acc = 0, v = 0;
    int64_t t0 = mono_now();
    for (int64_t i = 0; i < n; i++) {
        if (read(ctx, &v) != 0)
            return -1;
        acc += v;
    }
    int64_t t1 = mono_now();
    sink = acc;
    return (double)(t1 - t0) / 1e6;
}

int main(void)
{
    const char *quick_env = getenv("MONOSTAMP_BENCH_QUICK");
    int quick = quick_env != NULL && strcmp(quick_env, "1") == 0;
    int64_t window = quick ? NS_PER_S / 5 : NS_PER_S;
    double scale = (double)NS_PER_S / (double)window;
    int64_t stamps = quick ? 1000000 : 10000000;
    double stamp_scale = 10000000.0 / (double)stamps;
    const int sources[] = { MONOSTAMP_SOURCE_REALTIME, MONOSTAMP_SOURCE_REALTIME_COARSE };

    print_load("before");
    printf("Sampling for %s s%s: samples, distinct ns values, distinct us values.\n\n",
           quick ? "0.2" : "1", quick ? " (figures scaled to 1 s)" : "");
    printf("| sampled | samples | distinct (ns) | distinct (us) | last - realtime (us) | note |\n");
    printf("|---|---:|---:|---:|---:|---|\n");
    clockid_t realtime = CLOCK_REALTIME;
    print_sampling("gettimeofday()", sample_for(read_gettimeofday, NULL, window), scale);
    print_sampling("gettimeofday() + localtime_r()",
                   sample_for(read_gettimeofday_localtime, NULL, window), scale);
    print_sampling("clock_gettime(CLOCK_REALTIME)", sample_for(read_clock_id, &realtime, window),
                   scale);
#ifdef CLOCK_REALTIME_COARSE
    clockid_t coarse = CLOCK_REALTIME_COARSE;
    print_sampling("clock_gettime(CLOCK_REALTIME_COARSE)",
                   sample_for(read_clock_id, &coarse, window), scale);
#endif
    for (int s = 0; s < 2; s++)
        for (int p = 0; p < 4; p++) {
            monostamp_clock c;
            if (make_clock(&c, sources[s], p) != MONOSTAMP_OK)
                return 1;
            char name[128];
            snprintf(name, sizeof name, "monostamp_now [%s, %s]",
                     monostamp_source_name(sources[s]), monostamp_policy_name(p));
            print_sampling(name, sample_for(read_monostamp_now, &c, window), scale);
            monostamp_clock_destroy(&c);
        }

    printf("\nTime for 10 M stamps%s, ms; ratio against acceptPlatformTime on the same source.\n\n",
           quick ? " (1 M timed, scaled)" : "");
    printf("| stamps taken with | ms for 10 M | ns/stamp | ratio |\n");
    printf("|---|---:|---:|---:|\n");
    double ms = time_stamps(read_gettimeofday_localtime, NULL, stamps) * stamp_scale;
    printf("| gettimeofday() + localtime_r() | %.0f | %.1f | |\n", ms, ms * 1e6 / 1e7);
    for (int s = 0; s < 2; s++) {
        double base = -1;
        for (int p = 0; p < 4; p++) {
            monostamp_clock c;
            if (make_clock(&c, sources[s], p) != MONOSTAMP_OK)
                return 1;
            ms = time_stamps(read_monostamp_now, &c, stamps) * stamp_scale;
            monostamp_clock_destroy(&c);
            if (p == MONOSTAMP_ACCEPT_PLATFORM_TIME)
                base = ms;
            printf("| monostamp_now [%s, %s] | %.0f | %.1f | %.2f |\n",
                   monostamp_source_name(sources[s]), monostamp_policy_name(p), ms,
                   ms * 1e6 / 1e7, base > 0 ? ms / base : 0.0);
        }
    }
    print_load("after");
    return 0;
}
