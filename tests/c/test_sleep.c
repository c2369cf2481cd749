/*
 * test_sleep.c: monostamp_sleep_until / monostamp_sleep_for.
 *
 * The never-early property is asserted on every sleep, against a direct
 * CLOCK_MONOTONIC read after return.  Lateness is only asserted for a
 * generous tolerance and by majority, because this machine is shared and
 * noisy: a tight timing assertion here would test the neighbours.
 */
#include <errno.h>
#include <pthread.h> /* winpthreads under mingw-w64 */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if !defined(_WIN32)
#include <sys/time.h>
#endif

#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "check.h"
#include "monostamp.h"

#define US INT64_C(1000)
#define MS INT64_C(1000000)

/* The calibration's test hooks, defined in csrc/sleep.c (not in a header:
 * nothing else may depend on the calibration).  The margin a sleep of
 * `length_ns` would use now and whether its band has been observed; and
 * setting that band's margin as if observed. */
int64_t monostamp__sleep_margin_ns(int64_t length_ns, int *out_seen);
void monostamp__sleep_margin_set(int64_t length_ns, int64_t margin);

/* Shorter loops under TSan, whose run time is ~10x. */
static int reps(int plain)
{
    const char *tsan = getenv("MONOSTAMP_TEST_TSAN");
    return tsan != NULL && strcmp(tsan, "1") == 0 ? (plain + 3) / 4 : plain;
}

/* The clock the contract is stated in, read without going through the
 * library, so a bug in monostamp_monotonic_ns cannot hide one in sleep. */
#if defined(_WIN32)
/* Windows' monotonic clock is QueryPerformanceCounter, floored to ns. */
static int64_t mono_now(void)
{
    LARGE_INTEGER count, freq;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&count);
    return count.QuadPart / freq.QuadPart * 1000000000 +
           count.QuadPart % freq.QuadPart * 1000000000 / freq.QuadPart;
}
#else
static int64_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
#endif

static void test_errors(void)
{
    CHECK_RC(monostamp_sleep_for(-1, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_sleep_for(INT64_MIN, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_sleep_for(0, -1), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_sleep_for(1 * MS, INT64_MIN), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_sleep_until(mono_now() + 1 * MS, -1), MONOSTAMP_EINVAL);
    /* now + INT64_MAX cannot be a deadline; the call must not sleep. */
    int64_t before = mono_now();
    CHECK_RC(monostamp_sleep_for(INT64_MAX, 0), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_sleep_for(INT64_MAX - 1, INT64_MAX), MONOSTAMP_ERANGE);
    CHECK_LT(mono_now() - before, 1000 * MS);
}

static void test_edges_return_at_once(void)
{
    int64_t before = mono_now();
    CHECK_OK(monostamp_sleep_for(0, 0));
    CHECK_OK(monostamp_sleep_for(0, INT64_MAX));
    CHECK_OK(monostamp_sleep_until(0, 0));
    CHECK_OK(monostamp_sleep_until(INT64_MIN, 0));
    CHECK_OK(monostamp_sleep_until(mono_now() - 1 * MS, INT64_MAX));
    /* Five calls that have nothing to wait for: far less than a second
     * even on a loaded machine. */
    CHECK_LT(mono_now() - before, 1000 * MS);
}

static void test_monotonic_ns(void)
{
    int64_t prev = monostamp_monotonic_ns();
    CHECK_GT(prev, 0);
    for (int i = 0; i < 10000; i++) {
        int64_t lo = mono_now();
        int64_t t = monostamp_monotonic_ns();
        int64_t hi = mono_now();
        CHECK_GE(t, prev);
        CHECK_GE(t, lo);
        CHECK_LE(t, hi);
        prev = t;
    }
}

/* A fresh process's first sleeps of a length must use a
 * margin the machine has measured, not only a guess.  Structural, with no
 * timing bound a shared machine could break: this runs first in main, so
 * the library is as a new program finds it. */
static void test_calibration_from_the_first_sleep(void)
{
    const int64_t lengths[] = { 300 * US, 3 * MS };
    for (int i = 0; i < 2; i++) {
        int seen = -1;
        int64_t guess = monostamp__sleep_margin_ns(lengths[i], &seen);
        CHECK_EQ(seen, 0); /* nothing has slept yet in this process */
        CHECK_GE(guess, 20 * US);
        /* A sleep that has less than its margin left when it starts (a
         * loaded machine, Wine) only spins and measures nothing: such a
         * try says nothing, so the first one that slept must count. */
        int64_t m = 0;
        for (int tries = 0; tries < 50 && seen != 1; tries++) {
            int64_t deadline = mono_now() + lengths[i];
            CHECK_OK(monostamp_sleep_until(deadline, 0));
            CHECK_GE(mono_now(), deadline);
            m = monostamp__sleep_margin_ns(lengths[i], &seen);
        }
        /* A sleep, and the band holds a measured margin within bounds. */
        CHECK_EQ(seen, 1);
        CHECK_GE(m, 20 * US);
        CHECK_LE(m, 1 * MS);
    }
}

/* A band not slept in yet starts from a shorter band's measured margin
 * when that is higher than its own guess (a longer sleep wakes no sooner),
 * and its first observation keeps that value rather than the guess. */
static void test_unseen_band_starts_from_shorter(void)
{
    int seen = -1;
    int64_t saved = monostamp__sleep_margin_ns(3 * MS, &seen);
    (void)monostamp__sleep_margin_ns(30 * MS, &seen);
    CHECK_EQ(seen, 0); /* no 8-64 ms sleep before this test */
    monostamp__sleep_margin_set(3 * MS, 900 * US);
    CHECK_GE(monostamp__sleep_margin_ns(30 * MS, &seen), 900 * US);
    CHECK_EQ(seen, 0);
    int64_t deadline = mono_now() + 30 * MS;
    CHECK_OK(monostamp_sleep_until(deadline, 0));
    CHECK_GE(mono_now(), deadline);
    /* One lower observation moves a margin 1/128 of the way down at most. */
    int64_t m = monostamp__sleep_margin_ns(30 * MS, &seen);
    CHECK_EQ(seen, 1);
    CHECK_GE(m, 900 * US - 900 * US / 128);
    monostamp__sleep_margin_set(3 * MS, saved);
}

/* On a machine with more runnable threads than CPUs, and a margin at its
 * ceiling, the spin yields once preempted: still never early. */
static _Atomic int burning;

static void *burner(void *arg)
{
    (void)arg;
    while (atomic_load_explicit(&burning, memory_order_relaxed)) {
    }
    return NULL;
}

static void test_never_early_contended(void)
{
    enum { BURNERS = 3 };
    pthread_t t[BURNERS];
    int seen;
    int64_t saved = monostamp__sleep_margin_ns(300 * US, &seen);
    monostamp__sleep_margin_set(300 * US, 1 * MS); /* the yield's condition */
    atomic_store_explicit(&burning, 1, memory_order_relaxed);
    for (int i = 0; i < BURNERS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, burner, NULL), 0);
    int n = reps(100), early = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        int64_t deadline = mono_now() + 300 * US;
        if (monostamp_sleep_until(deadline, 0) != MONOSTAMP_OK)
            failed++;
        if (mono_now() < deadline)
            early++;
    }
    atomic_store_explicit(&burning, 0, memory_order_relaxed);
    for (int i = 0; i < BURNERS; i++)
        pthread_join(t[i], NULL);
    monostamp__sleep_margin_set(300 * US, saved);
    CHECK_EQ(failed, 0);
    CHECK_EQ(early, 0);
}

/* Every length crossed with every tolerance, so that both strategies
 * (kernel only, kernel then spin) and the spin-only case run, in every
 * band of the calibrated margin. */
static const int64_t lengths_ns[] = {
    0, 1, 1 * US, 10 * US, 30 * US, 100 * US, 300 * US, 1 * MS, 3 * MS
};
static const int64_t tolerances_ns[] = {
    0, 1 * US, 20 * US, MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS, 1 * MS, INT64_MAX
};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_never_early_until(void)
{
    int n = reps(8);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < COUNT(lengths_ns); i++)
            for (int j = 0; j < COUNT(tolerances_ns); j++) {
                int64_t deadline = mono_now() + lengths_ns[i];
                CHECK_OK(monostamp_sleep_until(deadline, tolerances_ns[j]));
                CHECK_GE(mono_now(), deadline);
            }
}

static void test_never_early_for(void)
{
    int n = reps(8);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < COUNT(lengths_ns); i++)
            for (int j = 0; j < COUNT(tolerances_ns); j++) {
                int64_t before = mono_now();
                CHECK_OK(monostamp_sleep_for(lengths_ns[i], tolerances_ns[j]));
                CHECK_GE(mono_now() - before, lengths_ns[i]);
            }
}

/* Many short sleeps in a row at tolerance 0: the calibrated margin moves
 * between them, and none may end before its deadline. */
static void test_never_early_many_short(void)
{
    int n = reps(400);
    for (int i = 0; i < n; i++) {
        int64_t length = (int64_t)(i % 40) * 5 * US; /* 0 .. 195 us */
        int64_t deadline = mono_now() + length;
        CHECK_OK(monostamp_sleep_until(deadline, 0));
        CHECK_GE(mono_now(), deadline);
    }
}

/* 1 ms with 20 ms of tolerance: the kernel alone should do it.  Asserted
 * by majority (3 of 5) since a preempted wake-up is not the library's. */
static void test_within_generous_tolerance(void)
{
    int within = 0;
    for (int i = 0; i < 5; i++) {
        int64_t deadline = mono_now() + 1 * MS;
        CHECK_OK(monostamp_sleep_until(deadline, 20 * MS));
        int64_t late = mono_now() - deadline;
        CHECK_GE(late, 0);
        if (late <= 20 * MS)
            within++;
    }
    CHECK_GE(within, 3);
}

/* The thread's timer slack is borrowed, never kept: whatever the caller had
 * is there after every kind of sleep. */
static void test_timer_slack_restored(void)
{
#if defined(_WIN32)
    SKIP("no per-thread timer slack to borrow");
#elif defined(__linux__) && defined(PR_GET_TIMERSLACK)
    int original = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    CHECK_GT(original, 0);
    const int custom[] = { original, 1, 123457, 5000000 };
    for (int c = 0; c < COUNT(custom); c++) {
        CHECK_EQ(prctl(PR_SET_TIMERSLACK, (unsigned long)custom[c], 0, 0, 0), 0);
        for (int j = 0; j < COUNT(tolerances_ns); j++) {
            CHECK_OK(monostamp_sleep_for(200 * US, tolerances_ns[j]));
            CHECK_EQ(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), custom[c]);
        }
    }
    CHECK_EQ(prctl(PR_SET_TIMERSLACK, (unsigned long)original, 0, 0, 0), 0);
#endif
}

#if defined(_WIN32)
static void test_signals_resume(void)
{
    SKIP("no SIGALRM nor setitimer: a Windows thread is not interrupted by signals");
}
#else
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

/* A signal whose handler returns must not end the sleep early: the sleep
 * resumes to the same absolute deadline. */
static void test_signals_resume(void)
{
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: the kernel sleep does see EINTR */
    CHECK_EQ(sigaction(SIGALRM, &sa, &old_sa), 0);
    /* A 2 ms interval timer interrupts every 20 ms sleep several times. */
    struct itimerval every_2ms = { { 0, 2000 }, { 0, 2000 } };
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    CHECK_EQ(setitimer(ITIMER_REAL, &every_2ms, NULL), 0);
    const int64_t tol[] = { 0, MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS, 10 * MS };
    int failed_rc = 0, early = 0;
    for (int j = 0; j < COUNT(tol); j++) {
        int64_t deadline = mono_now() + 20 * MS;
        if (monostamp_sleep_until(deadline, tol[j]) != MONOSTAMP_OK)
            failed_rc++;
        if (mono_now() < deadline)
            early++;
        int64_t before = mono_now();
        if (monostamp_sleep_for(20 * MS, tol[j]) != MONOSTAMP_OK)
            failed_rc++;
        if (mono_now() - before < 20 * MS)
            early++;
    }
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old_sa, NULL);
    CHECK_EQ(failed_rc, 0);
    CHECK_EQ(early, 0);
    /* Under TSan a signal may be delivered late, but it is delivered. */
    CHECK_GT(alarms, 0);
}
#endif

/* Threads share the calibrated margin; TSan checks that it is race-free
 * and every thread checks it is never early. */
#define THREADS 4

static void *sleeper(void *arg)
{
    intptr_t early = 0;
    int n = *(const int *)arg;
    for (int i = 0; i < n; i++) {
        int64_t length = (int64_t)(i % 7) * 70 * US;
        int64_t deadline = mono_now() + length;
        if (monostamp_sleep_until(deadline, (i % 3) * 30 * US) != MONOSTAMP_OK ||
            mono_now() < deadline)
            early++;
    }
    return (void *)early;
}

static void test_threads(void)
{
    pthread_t t[THREADS];
    int n = reps(100);
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, sleeper, &n), 0);
    intptr_t bad = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (intptr_t)r;
    }
    CHECK_EQ(bad, 0);
}

int main(void)
{
    /* First: it needs the library uncalibrated, as a new process has it. */
    RUN(test_calibration_from_the_first_sleep);
    RUN(test_unseen_band_starts_from_shorter);
    RUN(test_errors);
    RUN(test_edges_return_at_once);
    RUN(test_monotonic_ns);
    RUN(test_never_early_until);
    RUN(test_never_early_for);
    RUN(test_never_early_many_short);
    RUN(test_within_generous_tolerance);
    RUN(test_timer_slack_restored);
    RUN(test_signals_resume);
    RUN(test_threads);
    RUN(test_never_early_contended);
    return check_summary();
}
