/*
 * bench_clock.c: ns per stamp for every source x policy, as a ratio to a
 * raw clock_gettime(CLOCK_REALTIME) loop and to the source's floor, both
 * measured in the same run, with one thread and with two threads on one
 * clock.
 *
 * The floor is the least a strictly increasing stamp can cost on a source:
 * the source read inline in this file plus one relaxed compare-and-swap on a
 * C11 atomic under the nanosecond-increment rule (reading if above the last
 * stamp, else last + 1), with no library call.  Between the floor and
 * monostamp's own call, rows add one ingredient each to the floor, so that a
 * reader sees what each costs: the call itself (a noinline function), the
 * clock's two per-stamp counters, and the offset lookup.
 *
 * Each row alternates baseline, floor and candidate loops REPEATS times
 * and reports the median of the paired ratios, so a noisy neighbour slows
 * all three loops of a round rather than skewing the ratio.
 *
 *   MONOSTAMP_BENCH_QUICK=1   300,000 calls per loop instead of 2,000,000
 *                             (1,000,000 with two threads): about 10 s
 *
 * No assertion: the figures are printed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "monostamp.h"

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* One thread: 9 rounds of 2 M calls.  Two threads vary +-50 % between runs
 * whatever the count, so they get fewer, shorter rounds. */
enum { REPEATS_1T = 9, REPEATS_2T = 5 };
static long iterations_1t = 2000000;
static long iterations_2t = 1000000;

/* ------------------------------------------------------------- the floor */

/*
 * The floor's state, laid out as the clock keeps its per-stamp group: the
 * last stamp and the two counters on one cache line of their own, so that
 * the compare-and-swap brings the counters along.  Only the "+counters" row
 * touches them.
 */
struct floor_state {
    _Alignas(64) _Atomic int64_t last_ns;
    _Atomic uint64_t readings;
    _Atomic uint64_t duplicates;
    char pad[64 - 3 * sizeof(int64_t)];
};

static inline int64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* The nanosecond-increment rule in a CAS loop.  Relaxed is enough: only the
 * atomic's own modification order matters (see csrc/clock.c).  No overflow
 * check: stamps run ahead of readings by at most one ns per stamp, and
 * readings are centuries from INT64_MAX. */
static inline int64_t floor_stamp(struct floor_state *s, int64_t reading)
{
    int64_t last = atomic_load_explicit(&s->last_ns, memory_order_relaxed);
    int64_t stamp;
    do {
        stamp = reading > last ? reading : last + 1;
    } while (!atomic_compare_exchange_weak_explicit(&s->last_ns, &last, stamp,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    return stamp;
}

/* The floor: inline read + CAS. */
static inline int64_t floor_inline(struct floor_state *s, clockid_t id)
{
    return floor_stamp(s, read_clock(id));
}

/* (a) The same work behind a call the compiler may not inline: what calling
 * into a library costs over doing the work in place. */
static NOINLINE int floor_outofline(struct floor_state *s, clockid_t id, int64_t *out_ns)
{
    *out_ns = floor_stamp(s, read_clock(id));
    return 0;
}

/* A relaxed load and store, no locked instruction: how the clock keeps its
 * counters. */
static inline void bump(_Atomic uint64_t *counter)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* (b) The floor plus the clock's per-stamp counters: every reading counted,
 * and a reading not above the last stamp counted as a duplicate (on the
 * coarse source, nearly every one). */
static inline int64_t floor_counters(struct floor_state *s, clockid_t id)
{
    int64_t reading = read_clock(id);
    int64_t stamp = floor_stamp(s, reading);
    bump(&s->readings);
    if (stamp != reading)
        bump(&s->duplicates);
    return stamp;
}

/* ------------------------------------------------------------- the loops */

enum what {
    RAW_REALTIME,   /* the baseline: clock_gettime(CLOCK_REALTIME) */
    FLOOR,          /* inline read + CAS */
    FLOOR_CALL,     /* (a) the floor in a noinline function */
    FLOOR_COUNTERS, /* (b) the floor + two relaxed counters */
    FLOOR_OFFSET,   /* (c) the floor + monostamp_zone_offset */
    TIME_NS,        /* monostamp_time_ns */
    NOW,            /* monostamp_now */
    DEFAULT_NOW     /* monostamp_default_now: the process-wide clock */
};

struct job {
    enum what what;
    clockid_t id;              /* the floor's source */
    struct floor_state *state; /* shared by the threads of one loop */
    monostamp_zone *zone;      /* for FLOOR_OFFSET */
    monostamp_clock *clock;    /* for TIME_NS and NOW */
    long n;
    int64_t sink;
};

static void *loop(void *arg)
{
    struct job *j = arg;
    int64_t sink = 0;
    long n = j->n;
    switch (j->what) {
    case RAW_REALTIME:
        for (long i = 0; i < n; i++)
            sink += read_clock(CLOCK_REALTIME);
        break;
    case FLOOR:
        for (long i = 0; i < n; i++)
            sink += floor_inline(j->state, j->id);
        break;
    case FLOOR_CALL:
        for (long i = 0; i < n; i++) {
            int64_t ns;
            floor_outofline(j->state, j->id, &ns);
            sink += ns;
        }
        break;
    case FLOOR_COUNTERS:
        for (long i = 0; i < n; i++)
            sink += floor_counters(j->state, j->id);
        break;
    case FLOOR_OFFSET:
        for (long i = 0; i < n; i++) {
            int64_t ns = floor_inline(j->state, j->id);
            int32_t offset_s = 0;
            monostamp_zone_offset(j->zone, ns, &offset_s);
            sink += ns + offset_s;
        }
        break;
    case TIME_NS:
        for (long i = 0; i < n; i++) {
            int64_t ns = 0;
            monostamp_time_ns(j->clock, &ns);
            sink += ns;
        }
        break;
    case NOW:
        for (long i = 0; i < n; i++) {
            monostamp_stamp s = {0, 0};
            monostamp_now(j->clock, &s);
            sink += s.utc_ns + s.offset_s;
        }
        break;
    case DEFAULT_NOW:
        for (long i = 0; i < n; i++) {
            monostamp_stamp s = {0, 0};
            monostamp_default_now(&s);
            sink += s.utc_ns + s.offset_s;
        }
        break;
    }
    j->sink = sink;
    return NULL;
}

/* What one row measures, and against which floor. */
struct subject {
    enum what what;
    clockid_t id;
    monostamp_zone *zone;
    monostamp_clock *clock;
};

/* One floor state per source and thread count, so that no row inherits
 * another's lead.  Static: the alignment of a 64-byte line is kept. */
static struct floor_state floor_states[2][2];

/* ns per call with `threads` threads running the loop at once. */
static double ns_per_call(const struct subject *s, struct floor_state *state, int threads,
                          long n)
{
    struct job jobs[2];
    pthread_t ids[2];
    int64_t start = mono_now();
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){s->what, s->id, state, s->zone, s->clock, n, 0};
        if (threads == 1)
            loop(&jobs[t]);
        else if (pthread_create(&ids[t], NULL, loop, &jobs[t]) != 0) {
            fprintf(stderr, "bench_clock: pthread_create failed\n");
            exit(1);
        }
    }
    if (threads > 1)
        for (int t = 0; t < threads; t++)
            pthread_join(ids[t], NULL);
    return (double)(mono_now() - start) / (double)n;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], compare_double);
    return v[n / 2];
}

struct row {
    double ns, base_ns, ratio;   /* best, best raw, median ratio to raw */
    double floor_ns, floor_ratio; /* best floor, median ratio to the floor */
};

/* Rounds of raw, floor (unless the row is the floor) and candidate. */
static struct row measure(const struct subject *s, int source, int threads)
{
    enum { MAX_REPEATS = REPEATS_1T > REPEATS_2T ? REPEATS_1T : REPEATS_2T };
    int repeats = threads == 1 ? REPEATS_1T : REPEATS_2T;
    long n = threads == 1 ? iterations_1t : iterations_2t;
    struct floor_state *state = &floor_states[source][threads - 1];
    struct subject floor = {FLOOR, s->id, NULL, NULL};
    int is_floor = s->what == FLOOR;
    double ratios[MAX_REPEATS], floor_ratios[MAX_REPEATS];
    struct row r = {1e30, 1e30, 0, 1e30, 0};
    for (int i = 0; i < repeats; i++) {
        struct subject raw = {RAW_REALTIME, CLOCK_REALTIME, NULL, NULL};
        double base = ns_per_call(&raw, state, threads, n);
        double fl = is_floor ? 0 : ns_per_call(&floor, state, threads, n);
        double ns = ns_per_call(s, state, threads, n);
        ratios[i] = ns / base;
        floor_ratios[i] = is_floor ? 1 : ns / fl;
        if (ns < r.ns)
            r.ns = ns;
        if (base < r.base_ns)
            r.base_ns = base;
        if (!is_floor && fl < r.floor_ns)
            r.floor_ns = fl;
    }
    if (is_floor)
        r.floor_ns = r.ns;
    r.ratio = median(ratios, repeats);
    r.floor_ratio = median(floor_ratios, repeats);
    return r;
}

static void print_row(const char *source, const char *what, const char *call, int threads,
                      struct row r, int is_floor, const char *target)
{
    printf("| %-15s | %-46s | %-8s | %d | %6.1f | %6.1f | %5.2f | %5.2f | ", source, what,
           call, threads, r.ns, r.base_ns, r.ratio, r.ns / r.base_ns);
    if (is_floor)
        printf("%5s | %6s | %-6s |\n", "1", "0", target);
    else
        printf("%5.2f | %+6.1f | %-6s |\n", r.floor_ratio, r.ns - r.floor_ns, target);
}

static void make_clock(monostamp_clock *clock, int source, int policy, const char *shared)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = source;
    o.policy = policy;
    o.shared_path = shared;
    int rc = monostamp_clock_init(clock, &o);
    if (rc != 0) {
        fprintf(stderr, "bench_clock: clock_init: %s\n", monostamp_strerror(rc));
        exit(1);
    }
}

/* The floor and its ingredients on one source, one thread. */
static void ingredient_rows(int source, clockid_t id, monostamp_zone *zone)
{
    static const struct {
        enum what what;
        const char *label, *call;
    } rows[] = {
        {FLOOR, "floor: inline read + relaxed CAS (ns rule)", "floor"},
        {FLOOR_CALL, "(a) floor in a noinline function", "+call"},
        {FLOOR_COUNTERS, "(b) floor + 2 relaxed counters, CAS's line", "+count"},
        {FLOOR_OFFSET, "(c) floor + zone_offset (lib call, seqlock)", "+offset"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct subject s = {rows[i].what, id, zone, NULL};
        print_row(monostamp_source_name(source), rows[i].label, rows[i].call, 1,
                  measure(&s, source, 1), rows[i].what == FLOOR, "");
    }
}

int main(void)
{
    if (getenv("MONOSTAMP_BENCH_QUICK")) {
        iterations_1t = 300000;
        iterations_2t = 300000;
    }
    char shared[] = "/tmp/monostamp-bench-XXXXXX";
    int fd = mkstemp(shared);
    if (fd < 0)
        return 1;
    close(fd);
    unlink(shared); /* the clock creates it afresh */

    monostamp_zone *local = NULL;
    int rc = monostamp_zone_open(NULL, &local);
    if (rc != 0) {
        fprintf(stderr, "bench_clock: zone_open: %s\n", monostamp_strerror(rc));
        return 1;
    }
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < 2; t++)
            atomic_init(&floor_states[s][t].last_ns, INT64_MIN);

    static const clockid_t source_ids[2] = {
        CLOCK_REALTIME,
#ifdef CLOCK_REALTIME_COARSE
        CLOCK_REALTIME_COARSE,
#else
        CLOCK_REALTIME, /* unused: the source is skipped below */
#endif
    };
    int sources = 1;
#ifdef CLOCK_REALTIME_COARSE
    sources = 2;
#endif

    printf("ns per call: the best of %d rounds x %ld calls (%d x %ld with two threads).\n"
           "Each round runs a raw clock_gettime(CLOCK_REALTIME) loop, the source's floor\n"
           "and the row's own loop: `median ratio` and `x floor` are medians of the\n"
           "paired ratios (the figures the targets are read against); best/best is the\n"
           "ratio of the best loops, `+ns` the best loop minus the best floor.\n"
           "floor = the source read inline + one relaxed CAS on a C11 _Atomic int64_t\n"
           "(ns rule), no library call; (a), (b), (c) add one ingredient each to it.\n",
           REPEATS_1T, iterations_1t, REPEATS_2T, iterations_2t);
    print_load("before");
    printf("\n| source | policy or ingredient | call | threads | ns | raw ns | median ratio "
           "| best/best | x floor | +ns | target |\n");
    printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");

    /* Targets, one thread, against raw: [source][policy][time_ns, now]. */
    static const char *targets[2][4][2] = {
        {{"<=1.10", ""}, {"", ""}, {"", ""}, {"", "<=1.25"}},
        {{"", ""}, {"", ""}, {"", ""}, {"", "<=0.40"}},
    };
    /* The nanosecond policy first, next to the ingredients it is built of. */
    static const int policies[4] = {
        MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, MONOSTAMP_ACCEPT_PLATFORM_TIME,
        MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT};

    for (int threads = 1; threads <= 2; threads++) {
        for (int source = 0; source < sources; source++) {
            const char *name = monostamp_source_name(source);
            if (threads == 1) {
                ingredient_rows(source, source_ids[source], local);
            } else {
                struct subject s = {FLOOR, source_ids[source], NULL, NULL};
                print_row(name, "floor: inline read + relaxed CAS (ns rule)", "floor", 2,
                          measure(&s, source, 2), 1, "");
            }
            for (int p = 0; p < 4; p++) {
                int policy = policies[p];
                monostamp_clock clock;
                make_clock(&clock, source, policy, NULL);
                for (int call = 0; call < 2; call++) {
                    struct subject s = {call ? NOW : TIME_NS, source_ids[source], NULL, &clock};
                    print_row(name, monostamp_policy_name(policy), call ? "now" : "time_ns",
                              threads, measure(&s, source, threads), 0,
                              threads == 1 ? targets[source][policy][call] : "");
                }
                monostamp_clock_destroy(&clock);
            }
        }
        monostamp_clock clock;
        /* The steady state: a new file starts its creator's lead bound
         * above the wall clock, and for that long (1 s by default) every
         * stamp on it is a forced increment.  Made by a clock bounded at
         * 1 ms, the file is caught up with before the first round. */
        {
            monostamp_options o;
            monostamp_options_init(&o);
            o.shared_path = shared;
            o.max_lead_ns = 1000000;
            if (monostamp_clock_init(&clock, &o) != 0)
                return 1;
            monostamp_clock_destroy(&clock);
            monostamp_sleep_for(2000000, 0);
        }
        make_clock(&clock, MONOSTAMP_SOURCE_REALTIME,
                   MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, shared);
        struct subject s = {NOW, CLOCK_REALTIME, NULL, &clock};
        print_row("realtime+file", "monotonicForceNanosecondIncrement", "now", threads,
                  measure(&s, MONOSTAMP_SOURCE_REALTIME, threads), 0,
                  threads == 1 ? "<=1.30" : "");
        monostamp_clock_destroy(&clock);
        unlink(shared);
        /* The default clock (its policy, the anonymous page fork() shares,
         * the default lead bound) through monostamp_default_now. */
        struct subject d = {DEFAULT_NOW, CLOCK_REALTIME, NULL, NULL};
        print_row("default clock", monostamp_policy_name(monostamp_get_policy()), "default_now",
                  threads, measure(&d, MONOSTAMP_SOURCE_REALTIME, threads), 0, "");
    }
    printf("\n");
    print_load("after");
    monostamp_zone_close(local);
    return 0;
}
