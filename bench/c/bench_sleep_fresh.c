/*
 * bench_sleep_fresh.c: sleep lateness from a fresh process, the way a
 * user's program meets it: the first sleeps of each length, with the
 * library's margin not yet calibrated.
 *
 * The parent spawns its own binary once per run and requested length, so
 * every child starts with an uncalibrated library.  The child sleeps the
 * length N times by monostamp_sleep_for(x, 0) and by an absolute
 * clock_nanosleep (the baseline, at the thread's default timer slack),
 * interleaved sample by sample with the order alternating, so the
 * machine's noise falls on both alike; it writes one line per sample to
 * its stdout (a pipe), and the parent pools the runs.
 *
 * Lateness = CLOCK_MONOTONIC after the call - (CLOCK_MONOTONIC before the
 * call + requested).  Printed per length and method: median and p99 over
 * all samples, the range of the runs' medians, the median of each run's
 * first 5 sleeps (how fast the calibration converges), the share late by
 * 5 us or less, early samples, and
 * CPU us per sleep (CLOCK_THREAD_CPUTIME_ID: what the spin costs).
 *
 *   MONOSTAMP_BENCH_QUICK=1       2 runs and fewer samples (a few seconds)
 *   MONOSTAMP_FRESH_RUNS=n        n runs (default 8)
 *
 * No assertion: the figures are printed, a run on a busy machine is noisy.
 */
#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "monostamp.h"

#define US INT64_C(1000)
#define FIRST 5 /* the first sleeps of a process, reported apart */

extern char **environ;

static const int64_t requested_us[] = { 1, 300, 3000, 30000 };
static const int samples_full[] = { 200, 200, 200, 30 };
static const int samples_quick[] = { 100, 100, 60, 15 };
#define LENGTHS ((int)(sizeof requested_us / sizeof requested_us[0]))

enum { M_MONOSTAMP, M_KERNEL, METHODS };
static const char *const method_name[METHODS] = { "monostamp D=0", "clock_nanosleep abs" };

static int64_t cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void sleep_kernel(int64_t start_ns, int64_t req_ns)
{
    int64_t deadline = start_ns + req_ns;
    struct timespec ts = { (time_t)(deadline / NS_PER_S), (long)(deadline % NS_PER_S) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* The child: n samples of each method at one length, one line each:
 * "method index late_ns cpu_ns".  Nothing before the first sample, so the
 * library is exactly as a new program finds it. */
static int child(int64_t req_us, int n)
{
    int64_t req = req_us * US;
    for (int s = 0; s < n; s++) {
        for (int k = 0; k < METHODS; k++) {
            int m = (s + k) % METHODS; /* alternate which goes first */
            int64_t c0 = cpu_now();
            int64_t t0 = mono_now();
            if (m == M_MONOSTAMP) {
                if (monostamp_sleep_for(req, 0) != MONOSTAMP_OK)
                    return 1;
            } else {
                sleep_kernel(t0, req);
            }
            int64_t t1 = mono_now();
            int64_t c1 = cpu_now();
            printf("%d %d %" PRId64 " %" PRId64 "\n", m, s, t1 - (t0 + req), c1 - c0);
        }
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

typedef struct samples {
    int64_t *late, *cpu, *first, *run_median;
    int n, n_first, runs;
} samples;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The pct-th percentile by nearest rank, of a sorted array. */
static double rank_us(const int64_t *sorted, int n, int pct)
{
    int rank = (pct * n + 99) / 100;
    if (rank < 1)
        rank = 1;
    return (double)sorted[rank - 1] / 1000.0;
}

static double median_us(int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_i64);
    return n % 2 ? (double)v[n / 2] / 1000.0 : (double)(v[n / 2 - 1] + v[n / 2]) / 2000.0;
}

/* Runs one child and adds its samples to acc[]. */
static int run_child(const char *self, int64_t req_us, int n, samples acc[METHODS])
{
    int fd[2];
    if (pipe(fd) != 0) {
        perror("pipe");
        return -1;
    }
    char len_arg[32], n_arg[32];
    snprintf(len_arg, sizeof len_arg, "%" PRId64, req_us);
    snprintf(n_arg, sizeof n_arg, "%d", n);
    char *argv[] = { (char *)self, (char *)"child", len_arg, n_arg, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc != 0) {
        fprintf(stderr, "posix_spawn %s: %s\n", self, strerror(rc));
        close(fd[0]);
        return -1;
    }
    FILE *in = fdopen(fd[0], "r");
    int m, s, got[METHODS] = { 0 };
    int64_t late, cpu;
    int64_t *this_run[METHODS];
    for (int k = 0; k < METHODS; k++)
        this_run[k] = malloc(sizeof(int64_t) * (size_t)n);
    if (this_run[0] == NULL || this_run[1] == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    while (in != NULL && fscanf(in, "%d %d %" SCNd64 " %" SCNd64, &m, &s, &late, &cpu) == 4) {
        if (m < 0 || m >= METHODS || got[m] >= n)
            continue;
        samples *a = &acc[m];
        a->late[a->n] = late;
        a->cpu[a->n] = cpu;
        a->n++;
        this_run[m][got[m]++] = late;
        if (s < FIRST)
            a->first[a->n_first++] = late;
    }
    if (in != NULL)
        fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    for (int k = 0; k < METHODS; k++) {
        ok = ok && got[k] == n;
        if (got[k] > 0)
            acc[k].run_median[acc[k].runs++] = (int64_t)(median_us(this_run[k], got[k]) * 1000.0);
        free(this_run[k]);
    }
    if (!ok) {
        fprintf(stderr, "child for %" PRId64 " us failed\n", req_us);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "child") == 0)
        return child(strtoll(argv[2], NULL, 10), atoi(argv[3]));

    const char *quick = getenv("MONOSTAMP_BENCH_QUICK");
    int is_quick = quick != NULL && strcmp(quick, "1") == 0;
    int runs = is_quick ? 2 : 8;
    const char *runs_env = getenv("MONOSTAMP_FRESH_RUNS");
    if (runs_env != NULL && atoi(runs_env) > 0)
        runs = atoi(runs_env);
    const int *per_run = is_quick ? samples_quick : samples_full;
    /* The binary itself, found again by the kernel (argv[0] may be a bare
     * name looked up in PATH). */
    const char *self = access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : argv[0];

    print_load("before");
    printf("%d fresh processes per length, each %s; samples per process: "
           "%d / %d / %d / %d\n", runs, "monostamp_sleep_for(x, 0) and clock_nanosleep "
           "interleaved", per_run[0], per_run[1], per_run[2], per_run[3]);

    samples acc[LENGTHS][METHODS];
    for (int l = 0; l < LENGTHS; l++)
        for (int k = 0; k < METHODS; k++) {
            samples *a = &acc[l][k];
            size_t cap = (size_t)(per_run[l] * runs);
            a->late = malloc(sizeof(int64_t) * cap);
            a->cpu = malloc(sizeof(int64_t) * cap);
            a->first = malloc(sizeof(int64_t) * (size_t)(FIRST * runs));
            a->run_median = malloc(sizeof(int64_t) * (size_t)runs);
            a->n = a->n_first = a->runs = 0;
            if (!a->late || !a->cpu || !a->first || !a->run_median) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
        }
    /* Runs outermost, so a noisy minute spreads over every length. */
    for (int r = 0; r < runs; r++)
        for (int l = 0; l < LENGTHS; l++)
            if (run_child(self, requested_us[l], per_run[l], acc[l]) != 0)
                return 1;

    printf("\nLateness in us from a fresh process; median and p99 over every sample "
           "(nearest rank), the range of the %d runs' medians, the median of each "
           "process's first %d sleeps; early = samples before the deadline.\n\n",
           runs, FIRST);
    printf("| requested (us) | method | samples | median | p99 | max | run medians | "
           "first %d median | <= 5 us late | early | CPU us/sleep |\n", FIRST);
    printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double worst_median = 0;
    int early_total = 0;
    for (int l = 0; l < LENGTHS; l++)
        for (int k = 0; k < METHODS; k++) {
            samples *a = &acc[l][k];
            double cpu_sum = 0;
            int early = 0, within = 0;
            for (int i = 0; i < a->n; i++) {
                cpu_sum += (double)a->cpu[i];
                early += a->late[i] < 0;
                within += a->late[i] <= 5 * US;
            }
            double med = median_us(a->late, a->n);
            double p99 = rank_us(a->late, a->n, 99);
            double max = (double)a->late[a->n - 1] / 1000.0;
            qsort(a->run_median, (size_t)a->runs, sizeof(int64_t), cmp_i64);
            double first = median_us(a->first, a->n_first);
            printf("| %" PRId64 " | %s | %d | %.1f | %.1f | %.1f | %.1f–%.1f | %.1f | %.1f %% | %d | %.1f |\n",
                   requested_us[l], method_name[k], a->n, med, p99, max,
                   (double)a->run_median[0] / 1000.0,
                   (double)a->run_median[a->runs - 1] / 1000.0, first,
                   100.0 * within / a->n, early,
                   cpu_sum / a->n / 1000.0);
            if (k == M_MONOSTAMP) {
                early_total += early;
                if (med > worst_median)
                    worst_median = med;
            }
        }
    printf("\nmonostamp D=0 from a fresh process: worst median lateness %.1f us over all "
           "lengths (target <= 2 us); early samples: %d\n", worst_median, early_total);
    print_load("after");
    for (int l = 0; l < LENGTHS; l++)
        for (int k = 0; k < METHODS; k++) {
            free(acc[l][k].late);
            free(acc[l][k].cpu);
            free(acc[l][k].first);
            free(acc[l][k].run_median);
        }
    return 0;
}
