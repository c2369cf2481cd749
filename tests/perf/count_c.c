/*
 * count_c.c: the C paths the perf gate holds to recorded instruction counts
 * (tests/perf/gate.py runs it once under callgrind).  Each path runs a
 * warming loop, then N calls between a zero and a dump of callgrind's
 * counters, so a dump holds that loop alone: N calls and the loop's own two
 * instructions a turn.
 *
 *   count_c stamps N      private, file, coarse and default clocks
 *   count_c gettime N     clock_gettime(CLOCK_REALTIME), as the preload
 *                         answers it when LD_PRELOAD holds it
 *   count_c spaced N      the same, one call every 2 µs or more, the calls
 *                         alone counted (MONOSTAMP_GRAIN=us: each a fresh
 *                         reading's whole µs, as bench_preload times it)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <valgrind/callgrind.h>

#include "monostamp.h"

#define WARM 1000

static int count_clock(const char *name, monostamp_clock *clock, long n)
{
    /* Through a volatile pointer: the compiler cannot inline the call or
     * hoist anything out of the loop, as it cannot in a user's program. */
    int (*volatile now)(monostamp_clock *, monostamp_stamp *) = monostamp_now;
    monostamp_stamp s;
    for (long i = 0; i < WARM; i++)
        (void)now(clock, &s);
    CALLGRIND_ZERO_STATS;
    for (long i = 0; i < n; i++)
        (void)now(clock, &s);
    CALLGRIND_DUMP_STATS_AT(name);
    return 0;
}

static int count_stamps(long n)
{
    static monostamp_clock clock;
    monostamp_options o;
    char dir[] = "/tmp/perf-count-XXXXXX", path[64];
    if (mkdtemp(dir) == NULL)
        return 2;
    snprintf(path, sizeof path, "%s/state", dir);
    const char *kinds[] = {"c_private", "c_file", "c_coarse"};
    for (int k = 0; k < 3; k++) {
        monostamp_options_init(&o);
        o.zone = "UTC";
        o.max_lead_ns = 1000000; /* a coarse clock's forced increments never wait long */
        if (k == 1)
            o.shared_path = path;
        if (k == 2)
            o.source = MONOSTAMP_SOURCE_REALTIME_COARSE;
        if (monostamp_clock_init(&clock, &o) != MONOSTAMP_OK)
            return 2;
        count_clock(kinds[k], &clock, n);
        monostamp_clock_destroy(&clock);
    }
    int (*volatile default_now)(monostamp_stamp *) = monostamp_default_now;
    monostamp_stamp s;
    for (long i = 0; i < WARM; i++)
        (void)default_now(&s);
    CALLGRIND_ZERO_STATS;
    for (long i = 0; i < n; i++)
        (void)default_now(&s);
    CALLGRIND_DUMP_STATS_AT("c_default");
    unlink(path);
    rmdir(dir);
    return 0;
}

static int count_gettime(long n)
{
    int (*volatile gettime)(clockid_t, struct timespec *) = clock_gettime;
    struct timespec ts;
    for (long i = 0; i < WARM; i++)
        (void)gettime(CLOCK_REALTIME, &ts);
    CALLGRIND_ZERO_STATS;
    for (long i = 0; i < n; i++)
        (void)gettime(CLOCK_REALTIME, &ts);
    CALLGRIND_DUMP_STATS_AT("preload_clock_gettime");
    return 0;
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A call made alone: the wait between calls (a spin on the monotonic
 * clock, which the preload passes on untouched) is not collected, the
 * call is.  So a µs reader's call is counted as it costs when it reads a
 * fresh µs, not a forced increment of a tight loop. */
static int count_spaced(long n)
{
    int (*volatile gettime)(clockid_t, struct timespec *) = clock_gettime;
    struct timespec ts;
    for (long i = 0; i < WARM; i++)
        (void)gettime(CLOCK_REALTIME, &ts);
    CALLGRIND_TOGGLE_COLLECT; /* off */
    CALLGRIND_ZERO_STATS;
    for (long i = 0; i < n; i++) {
        int64_t start = monotonic_ns();
        while (monotonic_ns() - start < 2000)
            ;
        CALLGRIND_TOGGLE_COLLECT;
        (void)gettime(CLOCK_REALTIME, &ts);
        CALLGRIND_TOGGLE_COLLECT;
    }
    CALLGRIND_TOGGLE_COLLECT; /* on again */
    CALLGRIND_DUMP_STATS_AT("preload_clock_gettime_us");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    long n = atol(argv[2]);
    if (strcmp(argv[1], "stamps") == 0)
        return count_stamps(n);
    if (strcmp(argv[1], "gettime") == 0)
        return count_gettime(n);
    if (strcmp(argv[1], "spaced") == 0)
        return count_spaced(n);
    return 2;
}
