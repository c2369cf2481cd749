/*
 * bench_sleep.c: sleep lateness, as FreeBSD's calloutng work measured it
 * with its testsleep program (2013): for requested sleeps of 1, 300,
 * 3,000, 30,000 and 300,000 us, how late each way of sleeping wakes (mean
 * and p99, in us), whether any woke early, and the CPU time each sleep
 * burns.
 *
 * Lateness = CLOCK_MONOTONIC after the call - (CLOCK_MONOTONIC before the
 * call + requested).  Methods are interleaved sample by sample so that the
 * machine's noise falls on all of them alike.  The thread keeps its
 * default timer slack for every method but monostamp's, which sets its own.
 *
 *   MONOSTAMP_BENCH_QUICK=1       a fifth of the samples (a few seconds)
 *   MONOSTAMP_SLEEP_CSV=path      every sample as CSV, for bench/plot.py (sh bench/plots.sh)
 *
 * No assertion: the figures are printed, a run on a busy machine is noisy.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/timerfd.h>
#endif

#include "bench_util.h"
#include "monostamp.h"

#define US INT64_C(1000)

static int64_t cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static struct timespec to_timespec(int64_t ns)
{
    struct timespec ts = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };
    return ts;
}

/* Each method sleeps `req_ns` from `start_ns` (a CLOCK_MONOTONIC reading
 * taken just before), the way a program using it would. */
static int timer_fd = -1;

static void by_select(int64_t start_ns, int64_t req_ns)
{
    (void)start_ns;
    struct timeval tv = { (time_t)(req_ns / NS_PER_S),
                          (suseconds_t)((req_ns % NS_PER_S) / 1000) };
    while (select(0, NULL, NULL, NULL, &tv) < 0 && errno == EINTR) {
    }
}

static void by_poll(int64_t start_ns, int64_t req_ns)
{
    (void)start_ns;
    /* poll takes whole ms: rounded up, as rounding down would wake early. */
    int ms = (int)((req_ns + 999999) / 1000000);
    while (poll(NULL, 0, ms) < 0 && errno == EINTR) {
    }
}

static void by_usleep(int64_t start_ns, int64_t req_ns)
{
    (void)start_ns;
    usleep((useconds_t)(req_ns / 1000));
}

static void by_nanosleep(int64_t start_ns, int64_t req_ns)
{
    (void)start_ns;
    struct timespec ts = to_timespec(req_ns), rem;
    while (nanosleep(&ts, &rem) < 0 && errno == EINTR)
        ts = rem;
}

static void by_clock_nanosleep(int64_t start_ns, int64_t req_ns)
{
    struct timespec ts = to_timespec(start_ns + req_ns);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

#if defined(__linux__)
static void by_timerfd(int64_t start_ns, int64_t req_ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value = to_timespec(start_ns + req_ns);
    uint64_t expirations;
    if (timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
        while (read(timer_fd, &expirations, sizeof expirations) < 0 && errno == EINTR) {
        }
}
#endif

static void by_monostamp_0(int64_t start_ns, int64_t req_ns)
{
    monostamp_sleep_until(start_ns + req_ns, 0);
}

static void by_monostamp_default(int64_t start_ns, int64_t req_ns)
{
    monostamp_sleep_until(start_ns + req_ns, MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS);
}

typedef struct method {
    const char *name;
    void (*sleep)(int64_t start_ns, int64_t req_ns);
} method;

static const method methods[] = {
    { "select", by_select },
    { "poll", by_poll },
    { "usleep", by_usleep },
    { "nanosleep", by_nanosleep },
    { "clock_nanosleep abs", by_clock_nanosleep },
#if defined(__linux__)
    { "timerfd abs", by_timerfd },
#endif
    { "monostamp D=0", by_monostamp_0 },
    { "monostamp D=50us", by_monostamp_default },
};
#define METHODS ((int)(sizeof methods / sizeof methods[0]))

static const int64_t requested_us[] = { 1, 300, 3000, 30000, 300000 };
static const int samples_full[] = { 400, 400, 150, 40, 12 };
#define LENGTHS ((int)(sizeof requested_us / sizeof requested_us[0]))

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct row {
    double mean_us, p99_us, max_us, cpu_us;
    double within_5us_pct; /* the share of samples late by 5 us or less */
    int early, n;
} row;

static row results[LENGTHS][METHODS];

/* p99 by nearest rank: with fewer than 100 samples it is the maximum. */
static row summarise(int64_t *late, const int64_t *cpu, int n)
{
    row r;
    memset(&r, 0, sizeof r);
    double sum = 0, cpu_sum = 0;
    int within = 0;
    for (int i = 0; i < n; i++) {
        sum += (double)late[i];
        cpu_sum += (double)cpu[i];
        if (late[i] < 0)
            r.early++;
        if (late[i] <= 5 * US)
            within++;
    }
    r.within_5us_pct = 100.0 * within / n;
    qsort(late, (size_t)n, sizeof late[0], cmp_i64);
    int rank = (99 * n + 99) / 100; /* ceil(0.99 n), 1-based */
    r.n = n;
    r.mean_us = sum / n / 1000.0;
    r.p99_us = (double)late[rank - 1] / 1000.0;
    r.max_us = (double)late[n - 1] / 1000.0;
    r.cpu_us = cpu_sum / n / 1000.0;
    return r;
}

int main(void)
{
    const char *quick = getenv("MONOSTAMP_BENCH_QUICK");
    int divisor = quick != NULL && strcmp(quick, "1") == 0 ? 5 : 1;
    const char *csv_path = getenv("MONOSTAMP_SLEEP_CSV");
    FILE *csv = NULL;
    if (csv_path != NULL && *csv_path != '\0') {
        csv = fopen(csv_path, "w");
        if (csv == NULL) {
            perror(csv_path);
            return 1;
        }
        fprintf(csv, "method,requested_us,late_ns,cpu_ns\n");
    }
#if defined(__linux__)
    timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    if (timer_fd < 0) {
        perror("timerfd_create");
        return 1;
    }
    print_load("before");
    printf("thread timer slack: %d ns (the default every method but monostamp uses)\n",
           prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
#endif

    for (int l = 0; l < LENGTHS; l++) {
        int n = samples_full[l] / divisor;
        if (n < 3)
            n = 3;
        int64_t req = requested_us[l] * US;
        int64_t *late = malloc(sizeof(int64_t) * (size_t)(n * METHODS));
        int64_t *cpu = malloc(sizeof(int64_t) * (size_t)(n * METHODS));
        if (late == NULL || cpu == NULL) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        /* One unrecorded round first: page faults, first-use costs, and
         * monostamp's margin meeting this length. */
        for (int m = 0; m < METHODS; m++)
            methods[m].sleep(mono_now(), req);
        for (int s = 0; s < n; s++) {
            for (int m = 0; m < METHODS; m++) {
                int64_t c0 = cpu_now();
                int64_t t0 = mono_now();
                methods[m].sleep(t0, req);
                int64_t t1 = mono_now();
                int64_t c1 = cpu_now();
                late[m * n + s] = t1 - (t0 + req);
                cpu[m * n + s] = c1 - c0;
                if (csv != NULL)
                    fprintf(csv, "%s,%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
                            methods[m].name, requested_us[l], t1 - (t0 + req), c1 - c0);
            }
        }
        for (int m = 0; m < METHODS; m++)
            results[l][m] = summarise(late + m * n, cpu + m * n, n);
        free(late);
        free(cpu);
        fprintf(stderr, "  %" PRId64 " us: %d samples per method\n", requested_us[l], n);
    }
    if (csv != NULL)
        fclose(csv);

    printf("\nLateness in us, mean / p99 (p99 is the maximum below 100 samples); "
           "CPU us per sleep; early = samples that woke before the deadline.\n\n");
    printf("| requested (us) | method | samples | mean late | p99 late | max late | <= 5 us late | early | CPU us/sleep |\n");
    printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    int early_total = 0;
    for (int l = 0; l < LENGTHS; l++)
        for (int m = 0; m < METHODS; m++) {
            const row *r = &results[l][m];
            early_total += r->early;
            printf("| %" PRId64 " | %s | %d | %.1f | %.1f | %.1f | %.0f %% | %d | %.1f |\n",
                   requested_us[l], methods[m].name, r->n, r->mean_us, r->p99_us,
                   r->max_us, r->within_5us_pct, r->early, r->cpu_us);
        }

    printf("\nThe same, one row per method: mean / p99 late (us), CPU us/sleep in brackets.\n\n");
    printf("| method |");
    for (int l = 0; l < LENGTHS; l++)
        printf(" %" PRId64 " us |", requested_us[l]);
    printf("\n|---|");
    for (int l = 0; l < LENGTHS; l++)
        printf("---:|");
    printf("\n");
    for (int m = 0; m < METHODS; m++) {
        printf("| %s |", methods[m].name);
        for (int l = 0; l < LENGTHS; l++) {
            const row *r = &results[l][m];
            printf(" %.1f / %.1f (%.0f) |", r->mean_us, r->p99_us, r->cpu_us);
        }
        printf("\n");
    }

    double worst_p99 = 0;
    int mono0 = -1;
    for (int m = 0; m < METHODS; m++)
        if (strcmp(methods[m].name, "monostamp D=0") == 0)
            mono0 = m;
    for (int l = 0; l < LENGTHS && mono0 >= 0; l++)
        if (results[l][mono0].p99_us > worst_p99)
            worst_p99 = results[l][mono0].p99_us;
    printf("\nmonostamp D=0: worst p99 lateness %.1f us over all lengths (target <= 5 us); "
           "early samples over the whole table: %d\n", worst_p99, early_total);
    print_load("after");
#if defined(__linux__)
    close(timer_fd);
#endif
    return 0;
}
