/*
 * bench_os_calls.c: what each OS time call costs, as Sean Chittenden's
 * bench_time.c measured on FreeBSD in 2008: ns per call of time(),
 * gettimeofday(), clock_gettime() for each clock id this system has, and
 * of monostamp's calls for each source x policy.  The ratio column is
 * against clock_gettime(CLOCK_REALTIME) measured in the same run.
 *
 *   MONOSTAMP_BENCH_QUICK=1   about 40 ms per row instead of 200 ms
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


/* Results are folded into this so that no call can be optimised away. */
static volatile int64_t sink;

/* ------------------------------------------------ what each row calls */

typedef struct subject {
    const char *name;
    int (*call)(void *ctx, int64_t *out); /* one call; 0 if it worked */
    void *ctx;
    clockid_t id;                         /* for clock_gettime rows */
    int policy, source;                   /* for monostamp clock rows */
} subject;

static int call_time(void *ctx, int64_t *out)
{
    (void)ctx;
    *out = (int64_t)time(NULL);
    return 0;
}

static int call_gettimeofday(void *ctx, int64_t *out)
{
    (void)ctx;
    struct timeval tv;
    int rc = gettimeofday(&tv, NULL);
    *out = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
    return rc;
}

static int call_clock_gettime(void *ctx, int64_t *out)
{
    const subject *s = ctx;
    struct timespec ts;
    int rc = clock_gettime(s->id, &ts);
    *out = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
    return rc;
}

/* The Squeak thread's other contender: the time with its UTC offset, the
 * way Squeak's gettimeofday primitive does it (localtime_r per call). */
static int call_gettimeofday_localtime(void *ctx, int64_t *out)
{
    (void)ctx;
    struct timeval tv;
    struct tm tm;
    int rc = gettimeofday(&tv, NULL);
    time_t t = tv.tv_sec;
    localtime_r(&t, &tm);
    *out = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec + tm.tm_gmtoff;
    return rc;
}

static int call_source_read(void *ctx, int64_t *out)
{
    const subject *s = ctx;
    return monostamp_source_read(s->source, out);
}

static monostamp_clock clocks[3][4]; /* [source][policy] */

static int call_time_ns(void *ctx, int64_t *out)
{
    const subject *s = ctx;
    return monostamp_time_ns(&clocks[s->source][s->policy], out);
}

static int call_now(void *ctx, int64_t *out)
{
    const subject *s = ctx;
    monostamp_stamp st;
    int rc = monostamp_now(&clocks[s->source][s->policy], &st);
    *out = st.utc_ns + st.offset_s;
    return rc;
}

static int call_default_now(void *ctx, int64_t *out)
{
    (void)ctx;
    monostamp_stamp st;
    int rc = monostamp_default_now(&st);
    *out = st.utc_ns + st.offset_s;
    return rc;
}

/* ------------------------------------------------------- measurement */

/* ns per call over a run of about `budget_ns`; -1 if a call failed. */
static double measure(subject *s, int64_t budget_ns)
{
    int64_t acc = 0, v = 0;
    /* A short run to size the real one, and to warm caches and the vDSO. */
    int64_t n = 1000;
    int64_t t0 = mono_now();
    for (int64_t i = 0; i < n; i++) {
        if (s->call(s, &v) != 0)
            return -1;
        acc += v;
    }
    int64_t spent = mono_now() - t0;
    if (spent < 1)
        spent = 1;
    n = budget_ns / spent * n;
    if (n < 1000)
        n = 1000;
    t0 = mono_now();
    for (int64_t i = 0; i < n; i++) {
        s->call(s, &v);
        acc += v;
    }
    int64_t t1 = mono_now();
    sink = acc;
    return (double)(t1 - t0) / (double)n;
}

#define MAX_SUBJECTS 64
static subject subjects[MAX_SUBJECTS];
static int nsubjects;

static subject *add(const char *name, int (*call)(void *, int64_t *))
{
    if (nsubjects == MAX_SUBJECTS)
        return NULL;
    subject *s = &subjects[nsubjects++];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->call = call;
    return s;
}

static void add_clock_id(const char *name, clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return; /* not on this kernel */
    subject *s = add(name, call_clock_gettime);
    if (s != NULL)
        s->id = id;
}

static char names[3][4][2][96];

int main(void)
{
    const char *quick = getenv("MONOSTAMP_BENCH_QUICK");
    int64_t budget = quick != NULL && strcmp(quick, "1") == 0 ? 40000000 : 200000000;

    add("time()", call_time);
    add("gettimeofday()", call_gettimeofday);
    add("gettimeofday() + localtime_r()", call_gettimeofday_localtime);
    add_clock_id("clock_gettime(CLOCK_REALTIME)", CLOCK_REALTIME);
#ifdef CLOCK_REALTIME_COARSE
    add_clock_id("clock_gettime(CLOCK_REALTIME_COARSE)", CLOCK_REALTIME_COARSE);
#endif
    add_clock_id("clock_gettime(CLOCK_MONOTONIC)", CLOCK_MONOTONIC);
#ifdef CLOCK_MONOTONIC_COARSE
    add_clock_id("clock_gettime(CLOCK_MONOTONIC_COARSE)", CLOCK_MONOTONIC_COARSE);
#endif
#ifdef CLOCK_MONOTONIC_RAW
    add_clock_id("clock_gettime(CLOCK_MONOTONIC_RAW)", CLOCK_MONOTONIC_RAW);
#endif
#ifdef CLOCK_BOOTTIME
    add_clock_id("clock_gettime(CLOCK_BOOTTIME)", CLOCK_BOOTTIME);
#endif
#ifdef CLOCK_TAI
    add_clock_id("clock_gettime(CLOCK_TAI)", CLOCK_TAI);
#endif
    add_clock_id("clock_gettime(CLOCK_PROCESS_CPUTIME_ID)", CLOCK_PROCESS_CPUTIME_ID);
    add_clock_id("clock_gettime(CLOCK_THREAD_CPUTIME_ID)", CLOCK_THREAD_CPUTIME_ID);

    const int sources[] = { MONOSTAMP_SOURCE_REALTIME, MONOSTAMP_SOURCE_REALTIME_COARSE };
    for (int i = 0; i < 2; i++) {
        subject *s = add(i == 0 ? "monostamp_source_read(realtime)"
                                : "monostamp_source_read(realtime_coarse)",
                         call_source_read);
        if (s != NULL)
            s->source = sources[i];
    }
    for (int src = 0; src < 3; src++)
        for (int pol = 0; pol < 4; pol++) {
            monostamp_options o;
            monostamp_options_init(&o);
            o.source = src;
            o.policy = pol;
            int rc = monostamp_clock_init(&clocks[src][pol], &o);
            if (rc != MONOSTAMP_OK) {
                fprintf(stderr, "clock %s/%s: %s\n", monostamp_source_name(src),
                        monostamp_policy_name(pol), monostamp_strerror(rc));
                return 1;
            }
            for (int k = 0; k < 2; k++) {
                snprintf(names[src][pol][k], sizeof names[src][pol][k], "%s [%s, %s]",
                         k == 0 ? "monostamp_time_ns" : "monostamp_now",
                         monostamp_source_name(src), monostamp_policy_name(pol));
                subject *s = add(names[src][pol][k], k == 0 ? call_time_ns : call_now);
                if (s != NULL) {
                    s->source = src;
                    s->policy = pol;
                }
            }
        }
    add("monostamp_default_now", call_default_now);

    print_load("before");
    double base = -1;
    double result[MAX_SUBJECTS];
    for (int i = 0; i < nsubjects; i++) {
        result[i] = measure(&subjects[i], budget);
        if (subjects[i].call == call_clock_gettime && subjects[i].id == CLOCK_REALTIME)
            base = result[i];
    }

    printf("| call | ns/call | x clock_gettime(CLOCK_REALTIME) |\n");
    printf("|---|---:|---:|\n");
    for (int i = 0; i < nsubjects; i++) {
        if (result[i] < 0)
            printf("| %s | failed | |\n", subjects[i].name);
        else if (base > 0)
            printf("| %s | %.1f | %.2f |\n", subjects[i].name, result[i], result[i] / base);
        else
            printf("| %s | %.1f | |\n", subjects[i].name, result[i]);
    }

    print_load("after");
    for (int src = 0; src < 3; src++)
        for (int pol = 0; pol < 4; pol++)
            monostamp_clock_destroy(&clocks[src][pol]);
    return 0;
}
