/* bench_offset.c: what the UTC offset adds to a stamp, and what formatting
 * costs.  Every figure is a median over interleaved runs, printed with the
 * baseline measured in the same run; there are no thresholds here.
 *
 *   a  clock_gettime(CLOCK_REALTIME) alone
 *   b  the same read + monostamp__zone_offset_fast (the clock core's path)
 *   c  the same read + localtime_r
 * for the local zone with TZ unset and with TZ=America/New_York; then
 * monostamp_format_iso8601 against gmtime_r + strftime + snprintf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monostamp.h"
#include "zone.h"

#define ROUNDS 7
#define ITERS 2000000

static volatile int64_t sink;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t read_realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double run_bare(void)
{
    int64_t acc = 0, t0 = mono_ns();
    for (int i = 0; i < ITERS; i++) acc += read_realtime();
    sink = acc;
    return (double)(mono_ns() - t0) / ITERS;
}

static monostamp_zone *zone;

static double run_offset(void)
{
    int64_t acc = 0, t0 = mono_ns();
    for (int i = 0; i < ITERS; i++) {
        int64_t ns = read_realtime();
        int32_t off = 0;
        monostamp__zone_offset_fast(zone, ns, &off);
        acc += ns + off;
    }
    sink = acc;
    return (double)(mono_ns() - t0) / ITERS;
}

static double run_localtime(void)
{
    int64_t acc = 0, t0 = mono_ns();
    for (int i = 0; i < ITERS / 4; i++) {
        int64_t ns = read_realtime();
        time_t t = (time_t)(ns / 1000000000);
        struct tm tm;
        localtime_r(&t, &tm);
        acc += ns + tm.tm_gmtoff;
    }
    sink = acc;
    return (double)(mono_ns() - t0) / (ITERS / 4);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void bench_zone(const char *label)
{
    double a[ROUNDS], b[ROUNDS], c[ROUNDS], ma, mb, mc;
    int32_t off;
    monostamp_zone_changed();
    monostamp_zone_offset(zone, read_realtime(), &off); /* warm the window */
    for (int r = 0; r < ROUNDS; r++) {
        a[r] = run_bare();
        b[r] = run_offset();
        c[r] = run_localtime();
    }
    ma = median(a, ROUNDS);
    mb = median(b, ROUNDS);
    mc = median(c, ROUNDS);
    printf("%-26s read %6.2f ns | read+offset %6.2f ns (ratio %.3f, +%.2f ns) | "
           "read+localtime_r %7.2f ns (ratio %.2f)\n",
           label, ma, mb, mb / ma, mb - ma, mc, mc / ma);
}

static double run_format_ours(void)
{
    char buf[64];
    int64_t acc = 0, base = read_realtime(), t0 = mono_ns();
    for (int i = 0; i < ITERS / 4; i++)
        acc += monostamp_format_iso8601(buf, sizeof buf, base + (int64_t)i * 1000003, 3600, 9, 0) + buf[18];
    sink = acc;
    return (double)(mono_ns() - t0) / (ITERS / 4);
}

static double run_format_strftime(void)
{
    char buf[64];
    int64_t acc = 0, base = read_realtime(), t0 = mono_ns();
    for (int i = 0; i < ITERS / 4; i++) {
        int64_t ns = base + (int64_t)i * 1000003;
        time_t t = (time_t)(ns / 1000000000) + 3600;
        struct tm tm;
        size_t n;
        gmtime_r(&t, &tm);
        n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
        n += (size_t)snprintf(buf + n, sizeof buf - n, ".%09ld+01:00", (long)(ns % 1000000000));
        acc += (int64_t)n + buf[18];
    }
    sink = acc;
    return (double)(mono_ns() - t0) / (ITERS / 4);
}

int main(void)
{
    double f[ROUNDS], g[ROUNDS], mf, mg;
    char ours[64];
    if (monostamp_zone_open(NULL, &zone) != 0) return 1;
    printf("bench_offset: median of %d rounds; %d iterations each (localtime_r and "
           "formatting: %d)\n", ROUNDS, ITERS, ITERS / 4);
    unsetenv("TZ");
    tzset();
    bench_zone("local zone, TZ unset");
    setenv("TZ", "America/New_York", 1); /* single-threaded benchmark: fine */
    tzset();
    bench_zone("local zone, TZ=New_York");
    unsetenv("TZ");
    tzset();
    monostamp_zone_changed();
    for (int r = 0; r < ROUNDS; r++) {
        f[r] = run_format_ours();
        g[r] = run_format_strftime();
    }
    mf = median(f, ROUNDS);
    mg = median(g, ROUNDS);
    monostamp_format_iso8601(ours, sizeof ours, read_realtime(), 3600, 9, 0);
    printf("format %s: monostamp_format_iso8601 %6.2f ns | gmtime_r+strftime+snprintf "
           "%6.2f ns (ratio %.3f)\n", ours, mf, mg, mf / mg);
    return 0;
}
