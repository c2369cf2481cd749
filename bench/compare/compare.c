/*
 * compare.c: this tree's stamp against another revision's, in one process.
 *
 * bench/compare/against.sh builds the other revision's core with every
 * symbol renamed old_*, and links both into this program.  Each row then
 * alternates an old loop and a new loop ROUNDS times on the same source and
 * policy and reports the median of the paired new/old ratios: on a shared,
 * noisy machine a neighbour slows both halves of a pair alike, so the ratio
 * says what the change did where two separate runs of `make bench` cannot.
 *
 * Both revisions are driven through this tree's monostamp_options, whose
 * layout has not changed since 0.1.0, each filled by its own revision's
 * monostamp_options_init (so each clock has its revision's defaults, the
 * lead bound among them); the old clock lives in storage far larger than
 * any revision's clock.  After the source x policy rows: each on a state
 * file of its own (`+file`), and each revision's default clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "monostamp.h"

/* The other revision's entry points, renamed by against.sh. */
void old_monostamp_options_init(monostamp_options *options);
int old_monostamp_clock_init(void *clock, const monostamp_options *options);
int old_monostamp_time_ns(void *clock, int64_t *out_ns);
int old_monostamp_now(void *clock, monostamp_stamp *out);
int old_monostamp_default_now(monostamp_stamp *out);

enum { ROUNDS = 9, OLD_CLOCK_BYTES = 4096 };
static long iterations = 2000000;

static _Alignas(64) unsigned char old_clock[OLD_CLOCK_BYTES];
static monostamp_clock new_clock;

enum { CALL_TIME_NS, CALL_NOW, CALL_DEFAULT_NOW };

/* One loop of `iterations` calls; ns per call. */
static double run(int old, int call)
{
    int64_t sink = 0, start = mono_now();
    int now_call = call == CALL_NOW;
    if (call == CALL_DEFAULT_NOW) {
        for (long i = 0; i < iterations; i++) {
            monostamp_stamp s;
            if (old)
                old_monostamp_default_now(&s);
            else
                monostamp_default_now(&s);
            sink += s.utc_ns;
        }
    } else if (old && now_call) {
        for (long i = 0; i < iterations; i++) {
            monostamp_stamp s;
            old_monostamp_now(old_clock, &s);
            sink += s.utc_ns;
        }
    } else if (old) {
        for (long i = 0; i < iterations; i++) {
            int64_t ns;
            old_monostamp_time_ns(old_clock, &ns);
            sink += ns;
        }
    } else if (now_call) {
        for (long i = 0; i < iterations; i++) {
            monostamp_stamp s;
            monostamp_now(&new_clock, &s);
            sink += s.utc_ns;
        }
    } else {
        for (long i = 0; i < iterations; i++) {
            int64_t ns;
            monostamp_time_ns(&new_clock, &ns);
            sink += ns;
        }
    }
    double ns = (double)(mono_now() - start) / (double)iterations;
    /* Keep the loops: the sink is never this value. */
    if (sink == 42)
        printf("!");
    return ns;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A row: source x policy on private clocks, on state files of their own
 * (`shared`), or the two default clocks (`call` CALL_DEFAULT_NOW). */
static void row(int source, int policy, int call, int shared)
{
    monostamp_options o, n;
    double old_ns[ROUNDS], new_ns[ROUNDS], ratio[ROUNDS];
    char old_path[] = "/tmp/monostamp-compare-old-XXXXXX";
    char new_path[] = "/tmp/monostamp-compare-new-XXXXXX";
    int now_call = call != CALL_TIME_NS;

    old_monostamp_options_init(&o);
    monostamp_options_init(&n);
    o.source = n.source = source;
    o.policy = n.policy = policy;
    if (shared) {
        /* Names made unique by mkstemp, then left for the clocks to create. */
        int fd_old = mkstemp(old_path), fd_new = mkstemp(new_path);
        if (fd_old < 0 || fd_new < 0)
            return;
        close(fd_old);
        close(fd_new);
        unlink(old_path);
        unlink(new_path);
        o.shared_path = old_path;
        n.shared_path = new_path;
        /* This tree starts a new file its creator's bound (1 s by default)
         * above the wall clock, and every stamp is a forced increment until
         * the clock catches up: the file is made by a clock bounded at
         * 1 ms, so that the rounds measure the steady state. */
        monostamp_options first;
        monostamp_options_init(&first);
        first.shared_path = new_path;
        first.max_lead_ns = 1000000;
        if (monostamp_clock_init(&new_clock, &first) != MONOSTAMP_OK)
            return;
        monostamp_clock_destroy(&new_clock);
        monostamp_sleep_for(2000000, 0);
    }
    if (call != CALL_DEFAULT_NOW &&
        (old_monostamp_clock_init(old_clock, &o) != 0 ||
         monostamp_clock_init(&new_clock, &n) != MONOSTAMP_OK)) {
        printf("| %s | %s | cannot make the clocks |\n", monostamp_source_name(source),
               monostamp_policy_name(policy));
        return;
    }
    for (int r = 0; r < ROUNDS; r++) {
        /* Alternate which goes first, so neither always runs warm. */
        if (r % 2 == 0) {
            old_ns[r] = run(1, call);
            new_ns[r] = run(0, call);
        } else {
            new_ns[r] = run(0, call);
            old_ns[r] = run(1, call);
        }
        ratio[r] = new_ns[r] / old_ns[r];
    }
    if (call != CALL_DEFAULT_NOW)
        monostamp_clock_destroy(&new_clock);
    /* The old clock is left as it is: a private clock holds only a zone,
     * and the local zone is never freed (a shared one keeps its mapping). */
    if (shared) {
        unlink(old_path);
        unlink(new_path);
    }
    qsort(old_ns, ROUNDS, sizeof old_ns[0], by_value);
    qsort(new_ns, ROUNDS, sizeof new_ns[0], by_value);
    qsort(ratio, ROUNDS, sizeof ratio[0], by_value);
    char where[32];
    snprintf(where, sizeof where, "%s%s", call == CALL_DEFAULT_NOW ? "default clock"
                                          : monostamp_source_name(source),
             shared ? "+file" : "");
    printf("| %-15s | %-34s | %-11s | %6.1f | %6.1f | %5.2f | %5.2f |\n", where,
           monostamp_policy_name(policy),
           call == CALL_DEFAULT_NOW ? "default_now" : now_call ? "now" : "time_ns", old_ns[0],
           new_ns[0], ratio[ROUNDS / 2], new_ns[0] / old_ns[0]);
}

int main(void)
{
    const char *quick = getenv("MONOSTAMP_BENCH_QUICK");
    if (quick != NULL && quick[0] != '\0' && quick[0] != '0')
        iterations /= 10;
    printf("ns per call, best of %d rounds x %ld calls; new/old is the median of the\n"
           "paired ratios (< 1: this tree is faster), best/best the ratio of the best loops.\n",
           ROUNDS, iterations);
    print_load("before");
    printf("\n| source | policy | call | old ns | new ns | new/old | best/best |\n"
           "|---|---|---|---:|---:|---:|---:|\n");
    for (int source = MONOSTAMP_SOURCE_REALTIME; source <= MONOSTAMP_SOURCE_REALTIME_COARSE;
         source++)
        for (int policy = MONOSTAMP_ACCEPT_PLATFORM_TIME;
             policy <= MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT; policy++)
            for (int call = CALL_TIME_NS; call <= CALL_NOW; call++)
                row(source, policy, call, 0);
    for (int call = CALL_TIME_NS; call <= CALL_NOW; call++)
        row(MONOSTAMP_SOURCE_REALTIME, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, call, 1);
    row(MONOSTAMP_SOURCE_REALTIME, monostamp_get_policy(), CALL_DEFAULT_NOW, 0);
    print_load("after");
    return 0;
}
