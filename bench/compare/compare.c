/*
 * compare.c: this tree's stamp against another revision's, in one process.
 *
 * tools/bench-against.sh builds the other revision's core with every
 * symbol renamed old_*, and links both into this program.  Each row then
 * alternates an old loop and a new loop ROUNDS times on the same source and
 * policy and reports the median of the paired new/old ratios: on a shared,
 * noisy machine a neighbour slows both halves of a pair alike, so the ratio
 * says what the change did where two separate runs of `make bench` cannot.
 *
 * Both revisions are driven through this tree's monostamp_options, whose
 * layout has not changed since 0.1.0; the old clock lives in storage far
 * larger than any revision's clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "monostamp.h"

/* The other revision's entry points, renamed by bench-against.sh. */
void old_monostamp_options_init(monostamp_options *options);
int old_monostamp_clock_init(void *clock, const monostamp_options *options);
int old_monostamp_time_ns(void *clock, int64_t *out_ns);
int old_monostamp_now(void *clock, monostamp_stamp *out);

enum { ROUNDS = 9, OLD_CLOCK_BYTES = 4096 };
static long iterations = 2000000;

static _Alignas(64) unsigned char old_clock[OLD_CLOCK_BYTES];
static monostamp_clock new_clock;

/* One loop of `iterations` calls; ns per call. */
static double run(int old, int now_call)
{
    int64_t sink = 0, start = mono_now();
    if (old && now_call) {
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

static void row(int source, int policy, int now_call)
{
    monostamp_options o;
    double old_ns[ROUNDS], new_ns[ROUNDS], ratio[ROUNDS];

    old_monostamp_options_init(&o);
    o.source = source;
    o.policy = policy;
    if (old_monostamp_clock_init(old_clock, &o) != 0 ||
        monostamp_clock_init(&new_clock, &o) != MONOSTAMP_OK) {
        printf("| %s | %s | cannot make the clocks |\n", monostamp_source_name(source),
               monostamp_policy_name(policy));
        return;
    }
    for (int r = 0; r < ROUNDS; r++) {
        /* Alternate which goes first, so neither always runs warm. */
        if (r % 2 == 0) {
            old_ns[r] = run(1, now_call);
            new_ns[r] = run(0, now_call);
        } else {
            new_ns[r] = run(0, now_call);
            old_ns[r] = run(1, now_call);
        }
        ratio[r] = new_ns[r] / old_ns[r];
    }
    monostamp_clock_destroy(&new_clock);
    /* The old clock is left as it is: a private clock holds only a zone,
     * and the local zone is never freed. */
    qsort(old_ns, ROUNDS, sizeof old_ns[0], by_value);
    qsort(new_ns, ROUNDS, sizeof new_ns[0], by_value);
    qsort(ratio, ROUNDS, sizeof ratio[0], by_value);
    printf("| %-15s | %-34s | %-7s | %6.1f | %6.1f | %5.2f | %5.2f |\n",
           monostamp_source_name(source), monostamp_policy_name(policy),
           now_call ? "now" : "time_ns", old_ns[0], new_ns[0], ratio[ROUNDS / 2],
           new_ns[0] / old_ns[0]);
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
            for (int now_call = 0; now_call <= 1; now_call++)
                row(source, policy, now_call);
    print_load("after");
    return 0;
}
