/* test_zone_fold.c: monostamp_zone_fold, the second of two equal wall
 * times, on named cases: New York's hour and Lord Howe's half hour when
 * the clocks go back, none when they go forward, a POSIX TZ string whose
 * change falls on 1 January 00:00 UTC (a year's edge in the rule engine),
 * the local zone following TZ, and the fallback for local zones only the C
 * library can read, and threads asking while the window is republished.
 * Every zone of the machine's database is checked
 * against the standard library's rule in test_zone_all.c. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "monostamp.h"
#include "pinned_zones.h"
#include "zone_check.h"
#include "zone_probe.h"

/* 2026-11-01T06:00Z: New York 02:00 EDT -> 01:00 EST. */
#define NY_BACK INT64_C(1793512800)
/* 2026-03-08T07:00Z: New York 02:00 EST -> 03:00 EDT. */
#define NY_FORWARD INT64_C(1772953200)

/* The fold at second t; -1 on error. */
static int fold_at(monostamp_zone *z, int64_t t)
{
    int fold = -1;
    if (monostamp_zone_fold(z, t * NS, &fold) != 0) return -1;
    return fold;
}

/* Checks that the wall times from `back` (a change that sets the clocks
 * back by d) to back + d - 1 are the second of their pair, to the ns. */
#define CHECK_REPEATED(z, back, d)                                            \
    do {                                                                      \
        int f_ = -1;                                                          \
        CHECK_EQ(fold_at(z, (back) - 1), 0);                                  \
        CHECK_OK(monostamp_zone_fold(z, (back) * NS - 1, &f_));               \
        CHECK_EQ(f_, 0);                                                      \
        CHECK_EQ(fold_at(z, (back)), 1);                                      \
        CHECK_EQ(fold_at(z, (back) + (d) - 1), 1);                            \
        CHECK_OK(monostamp_zone_fold(z, ((back) + (d)) * NS - 1, &f_));       \
        CHECK_EQ(f_, 1);                                                      \
        CHECK_EQ(fold_at(z, (back) + (d)), 0);                                \
        CHECK_EQ(fold_at(z, (back) + 86400), 0);                              \
    } while (0)

static void test_new_york(void)
{
    monostamp_zone *z = NULL;
    CHECK_OK(monostamp_zone_open("America/New_York", &z));
    CHECK_REPEATED(z, NY_BACK, 3600);
    /* Clocks going forward skip wall times: none repeats. */
    CHECK_EQ(fold_at(z, NY_FORWARD - 1), 0);
    CHECK_EQ(fold_at(z, NY_FORWARD), 0);
    CHECK_EQ(fold_at(z, NY_FORWARD + 1800), 0);
    CHECK_EQ(fold_at(z, JUL_2026), 0);
    /* Past the table, from the footer rule: 2099-11-01T06:00Z. */
    CHECK_REPEATED(z, INT64_C(4097196000), 3600);
    /* Asked in any order: the cached window answers for earlier instants
     * of itself too. */
    CHECK_EQ(fold_at(z, NY_BACK + 7200), 0);
    CHECK_EQ(fold_at(z, NY_BACK + 10), 1);
    monostamp_zone_close(z);
}

static void test_lord_howe(void)
{
    monostamp_zone *z = NULL;
    /* +11 -> +10:30 on 2026-04-05 02:00 local: half an hour twice. */
    CHECK_OK(monostamp_zone_open("Australia/Lord_Howe", &z));
    CHECK_REPEATED(z, INT64_C(1775314800), 1800);
    CHECK_EQ(fold_at(z, INT64_C(1791041400)), 0); /* forward again in October */
    monostamp_zone_close(z);
}

static void test_rule_at_a_years_edge(void)
{
    monostamp_zone *z = NULL;
    /* RFC 8536's "DST all year", read as glibc reads it: standard time
     * from 1 January 00:00 UTC to 05:00 UTC, so the clocks go back an hour
     * as each year begins. */
    CHECK_OK(monostamp_zone_open("EST5EDT,0/0,J365/25", &z));
    CHECK_REPEATED(z, JAN_2026, 3600);
    CHECK_EQ(fold_at(z, JAN_2026 + 5 * 3600), 0);
    monostamp_zone_close(z);
    CHECK_OK(monostamp_zone_open("UTC", &z));
    CHECK_EQ(fold_at(z, JAN_2026), 0);
    CHECK_EQ(fold_at(z, INT64_MIN / NS), 0);
    monostamp_zone_close(z);
}

static void test_local_zone(void)
{
    monostamp_zone *z = NULL;
    int fold = -1;
    CHECK_OK(monostamp_zone_open(NULL, &z));
    setenv("TZ", "America/New_York", 1);
    monostamp_zone_changed();
    CHECK_REPEATED(z, NY_BACK, 3600);
    /* A new TZ is a new answer, at once after monostamp_zone_changed. */
    setenv("TZ", "UTC", 1);
    monostamp_zone_changed();
    CHECK_EQ(fold_at(z, NY_BACK + 1800), 0);
    setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1);
    monostamp_zone_changed();
    CHECK_EQ(fold_at(z, NY_BACK + 1800), 1);
    unsetenv("TZ");
    monostamp_zone_changed();
    CHECK_EQ(monostamp_zone_fold(NULL, 0, &fold), MONOSTAMP_EINVAL);
    CHECK_EQ(monostamp_zone_fold(z, 0, NULL), MONOSTAMP_EINVAL);
}

/* A local zone only the C library reads is probed with localtime_r: the
 * probe's fold rule, on a TZ the C library reads as New York's rules. */
static void test_probed(void)
{
#if defined(_WIN32)
    SKIP("the C runtime's TZ rules are its own (docs/windows.md)");
#else
    setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1);
    monostamp__zone_probe_reset();
    CHECK_EQ(monostamp__zone_probe_fold_until(NY_BACK, -18000), NY_BACK + 3600);
    CHECK_EQ(monostamp__zone_probe_fold_until(NY_BACK + 3599, -18000), NY_BACK + 3600);
    CHECK_EQ(monostamp__zone_probe_fold_until(NY_BACK - 1, -14400), INT64_MIN);
    CHECK_EQ(monostamp__zone_probe_fold_until(NY_BACK + 86400, -18000), INT64_MIN);
    CHECK_EQ(monostamp__zone_probe_fold_until(NY_FORWARD, -14400), INT64_MIN);
    unsetenv("TZ");
    monostamp__zone_probe_reset();
#endif
}

static _Atomic int stop_flag;
static _Atomic long wrong_answers;

/* Asks the fold on both sides of New York's change, and the offset
 * between, so that the window is republished under the askers. */
static void *asker(void *arg)
{
    monostamp_zone *z = arg;
    for (int i = 0; i < 20000; i++) {
        int in = -1, out = -1;
        int32_t off = 0;
        monostamp_zone_fold(z, (NY_BACK + 1800) * NS, &in);
        monostamp_zone_offset(z, (NY_BACK - 86400 * (i % 3)) * NS, &off);
        monostamp_zone_fold(z, (NY_BACK - 1800) * NS, &out);
        if (in != 1 || out != 0) atomic_fetch_add(&wrong_answers, 1);
    }
    return NULL;
}

static void *changer(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_flag)) monostamp_zone_changed();
    return NULL;
}

static void test_threads(void)
{
    monostamp_zone *named = NULL, *local = NULL;
    pthread_t th[5];
    CHECK_OK(monostamp_zone_open("America/New_York", &named));
    CHECK_OK(monostamp_zone_open(NULL, &local));
    setenv("TZ", "America/New_York", 1);
    monostamp_zone_changed();
    atomic_store(&stop_flag, 0);
    atomic_store(&wrong_answers, 0);
    CHECK_EQ(pthread_create(&th[0], NULL, changer, NULL), 0);
    for (int i = 1; i < 5; i++)
        CHECK_EQ(pthread_create(&th[i], NULL, asker, i % 2 ? named : local), 0);
    for (int i = 1; i < 5; i++) pthread_join(th[i], NULL);
    atomic_store(&stop_flag, 1);
    pthread_join(th[0], NULL);
    CHECK_EQ(atomic_load(&wrong_answers), 0);
    unsetenv("TZ");
    monostamp_zone_changed();
    monostamp_zone_close(named);
}

int main(void)
{
    if (pin_zones() != 0) return 1;
    RUN(test_new_york);
    RUN(test_lord_howe);
    RUN(test_rule_at_a_years_edge);
    RUN(test_local_zone);
    RUN(test_probed);
    RUN(test_threads);
    return check_summary();
}
