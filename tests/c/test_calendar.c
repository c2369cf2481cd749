/* test_calendar.c: the integer calendar against known dates and itself,
 * and the public wall fields (monostamp_wall_fields, monostamp_wall_seconds)
 * against known instants, the C library's gmtime and each other. */
#include <time.h>

#include "calendar.h"
#include "check.h"
#include "monostamp.h"

static void test_known_days(void)
{
    CHECK_EQ(monostamp__days_from_civil(1970, 1, 1), 0);
    CHECK_EQ(monostamp__days_from_civil(2000, 3, 1), 11017);
    CHECK_EQ(monostamp__days_from_civil(1969, 12, 31), -1);
    CHECK_EQ(monostamp__days_from_civil(1, 1, 1), -719162);
    CHECK_EQ(monostamp__days_from_civil(9999, 12, 31), 2932896);
    CHECK_EQ(monostamp__weekday(0), 4);                                      /* Thursday */
    CHECK_EQ(monostamp__weekday(monostamp__days_from_civil(2026, 12, 2)), 3); /* Wednesday */
    CHECK_EQ(monostamp__weekday(-719162), 1);                                 /* 0001-01-01 Monday */
    CHECK_EQ(monostamp__days_in_month(2024, 2), 29);
    CHECK_EQ(monostamp__days_in_month(2100, 2), 28);
    CHECK_EQ(monostamp__days_in_month(2000, 2), 29);
    CHECK_EQ(monostamp__days_in_month(2026, 13), 0);
}

/* Every day from 0001-01-01 to 9999-12-31 maps back to itself, in order. */
static void test_round_trip(void)
{
    int64_t prev_y = 1;
    int prev_m = 1, prev_d = 0;
    for (int64_t d = -719162; d <= 2932896; d++) {
        int64_t y;
        int m, day;
        monostamp__civil_from_days(d, &y, &m, &day);
        if (monostamp__days_from_civil(y, m, day) != d) CHECK_EQ(monostamp__days_from_civil(y, m, day), d);
        if (day == prev_d + 1) CHECK(y == prev_y && m == prev_m);
        else CHECK(day == 1 && ((m == prev_m + 1 && y == prev_y) || (m == 1 && prev_m == 12 && y == prev_y + 1)));
        CHECK_LE(day, monostamp__days_in_month(y, m));
        prev_y = y;
        prev_m = m;
        prev_d = day;
    }
}

static void test_floor(void)
{
    CHECK_EQ(monostamp__floor_div(-1, 1000000000), -1);
    CHECK_EQ(monostamp__floor_mod(-1, 1000000000), 999999999);
    CHECK_EQ(monostamp__floor_div(INT64_MIN, 1000000000), -9223372037);
    CHECK_EQ(monostamp__s_to_ns_sat(INT64_C(9223372037)), INT64_MAX);
    CHECK_EQ(monostamp__s_to_ns_sat(INT64_C(-9223372037)), INT64_MIN);
    CHECK_EQ(monostamp__s_to_ns_sat(-5), -5000000000);
}

#define NS INT64_C(1000000000)

/* Checks every field of `w` against the expected values. */
#define CHECK_WALL(w, y, mo, d, h, mi, s, ns, wd, yd)                         \
    do {                                                                      \
        CHECK_EQ((w).year, y);                                                \
        CHECK_EQ((w).month, mo);                                              \
        CHECK_EQ((w).day, d);                                                 \
        CHECK_EQ((w).hour, h);                                                \
        CHECK_EQ((w).minute, mi);                                             \
        CHECK_EQ((w).second, s);                                              \
        CHECK_EQ((w).nanosecond, ns);                                         \
        CHECK_EQ((w).weekday, wd);                                            \
        CHECK_EQ((w).yday, yd);                                               \
    } while (0)

static void test_wall_known(void)
{
    monostamp_wall w;
    CHECK_OK(monostamp_wall_fields(0, 0, &w));
    CHECK_WALL(w, 1970, 1, 1, 0, 0, 0, 0, 4, 1); /* a Thursday */
    /* One ns before the epoch floors into the last second of 1969. */
    CHECK_OK(monostamp_wall_fields(-1, 0, &w));
    CHECK_WALL(w, 1969, 12, 31, 23, 59, 59, 999999999, 3, 365);
    /* 2026-12-02T15:11:20.123456789+01:00, a Wednesday. */
    CHECK_OK(monostamp_wall_fields(INT64_C(1796220680123456789), 3600, &w));
    CHECK_WALL(w, 2026, 12, 2, 15, 11, 20, 123456789, 3, 336);
    /* An offset that crosses the day, the month and a leap day back. */
    CHECK_OK(monostamp_wall_fields(INT64_C(1709251200) * NS, -3600, &w)); /* 2024-03-01Z */
    CHECK_WALL(w, 2024, 2, 29, 23, 0, 0, 0, 4, 60);
    /* The ends of int64 ns, at the ends of int32 offsets. */
    CHECK_OK(monostamp_wall_fields(INT64_MIN, 0, &w));
    CHECK_WALL(w, 1677, 9, 21, 0, 12, 43, 145224192, 2, 264);
    CHECK_OK(monostamp_wall_fields(INT64_MAX, 0, &w));
    CHECK_WALL(w, 2262, 4, 11, 23, 47, 16, 854775807, 5, 101);
    CHECK_OK(monostamp_wall_fields(INT64_MIN, INT32_MIN, &w));
    CHECK_EQ(w.year, 1609);
    CHECK_OK(monostamp_wall_fields(INT64_MAX, INT32_MAX, &w));
    CHECK_EQ(w.year, 2330);
    CHECK_EQ(monostamp_wall_fields(0, 0, NULL), MONOSTAMP_EINVAL);
}

/* Instants every ~3.3 days (odd seconds and ns) over the whole int64 ns
 * range, at offsets either side: the fields agree with gmtime (where the
 * C library has it for all those years), weekdays and days of the year
 * step as the days do, and monostamp_wall_seconds takes them back. */
static void test_wall_sweep(void)
{
    static const int32_t offsets[] = {0, 3600, -18000, 20700, -86399, 86399};
    int64_t checked = 0;
    for (int64_t t = INT64_MIN; t < INT64_MAX - INT64_C(285000000123457); t += INT64_C(285000000123457)) {
        for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
            monostamp_wall w;
            int64_t local_s = monostamp__floor_div(t, NS) + offsets[i];
            CHECK_OK(monostamp_wall_fields(t, offsets[i], &w));
            CHECK_EQ(monostamp_wall_seconds(&w), local_s);
            CHECK_EQ(w.nanosecond, monostamp__floor_mod(t, NS));
            CHECK_EQ(w.weekday, (monostamp__weekday(monostamp__floor_div(local_s, 86400)) + 6) % 7 + 1);
#if !defined(_WIN32) /* its gmtime stops at 1970 and 3000 */
            {
                time_t tt = (time_t)local_s;
                struct tm tm;
                CHECK(gmtime_r(&tt, &tm) != NULL);
                CHECK_EQ(w.year, tm.tm_year + 1900);
                CHECK_EQ(w.month, tm.tm_mon + 1);
                CHECK_EQ(w.day, tm.tm_mday);
                CHECK_EQ(w.hour, tm.tm_hour);
                CHECK_EQ(w.minute, tm.tm_min);
                CHECK_EQ(w.second, tm.tm_sec);
                CHECK_EQ(w.weekday, tm.tm_wday == 0 ? 7 : tm.tm_wday);
                CHECK_EQ(w.yday, tm.tm_yday + 1);
            }
#endif
            checked++;
        }
    }
    CHECK_GT(checked, 100000);
}

static void test_wall_seconds_normalises(void)
{
    /* Nothing is checked: 31 February is 3 March, as the header says. */
    monostamp_wall w = {.year = 2026, .month = 2, .day = 31, .hour = 0, .minute = 0, .second = 0};
    monostamp_wall m = {.year = 2026, .month = 3, .day = 3, .hour = 0, .minute = 0, .second = 0};
    CHECK_EQ(monostamp_wall_seconds(&w), monostamp_wall_seconds(&m));
    w.hour = 25;
    m.day = 4;
    m.hour = 1;
    CHECK_EQ(monostamp_wall_seconds(&w), monostamp_wall_seconds(&m));
}

/* Whole and split seconds as ns: errors first, then the very ends. */
static void test_ns_from_seconds(void)
{
    int64_t ns = 7;
    CHECK_RC(monostamp_ns_from_seconds(0, -1, &ns), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_ns_from_seconds(0, 1000000000, &ns), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_ns_from_seconds(0, 0, NULL), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_ns_from_seconds(INT64_C(9223372037), 0, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_seconds(INT64_C(9223372036), 854775808, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_seconds(INT64_C(-9223372037), 145224191, &ns), MONOSTAMP_ERANGE);
    CHECK_EQ(ns, 7);
    CHECK_OK(monostamp_ns_from_seconds(INT64_C(9223372036), 854775807, &ns));
    CHECK_EQ(ns, INT64_MAX);
    CHECK_OK(monostamp_ns_from_seconds(INT64_C(-9223372037), 145224192, &ns));
    CHECK_EQ(ns, INT64_MIN);
    CHECK_OK(monostamp_ns_from_seconds(-1, 1, &ns));
    CHECK_EQ(ns, -999999999);
}

/* Float seconds: NaN and the infinities refused, an instant rounded half
 * to even from its exact fraction, a duration rounded up. */
static void test_ns_from_double(void)
{
    int64_t ns = 7;
    double nan = 0.0 / 0.0, inf = 1.0 / 0.0;
    CHECK_RC(monostamp_ns_from_double(nan, 0, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_double(nan, 1, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_double(inf, 0, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_double(-inf, 1, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_double(1e10, 0, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_double(1e10, 1, &ns), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_ns_from_double(0.0, 0, NULL), MONOSTAMP_EINVAL);
    CHECK_EQ(ns, 7);
    CHECK_OK(monostamp_ns_from_double(1.5, 0, &ns));
    CHECK_EQ(ns, 1500000000);
    CHECK_OK(monostamp_ns_from_double(-1.5, 0, &ns));
    CHECK_EQ(ns, -1500000000);
    /* 2**-31 s is 0.4656... ns: down to 0; 2**-30 s is 0.9313... ns: up
     * to 1; 1/1024 s is 976562.5 ns, 3/1024 s 2929687.5 ns: ties, to even. */
    CHECK_OK(monostamp_ns_from_double(1.0 / 2147483648.0, 0, &ns));
    CHECK_EQ(ns, 0);
    CHECK_OK(monostamp_ns_from_double(1.0 / 1073741824.0, 0, &ns));
    CHECK_EQ(ns, 1);
    CHECK_OK(monostamp_ns_from_double(-1.0 / 2147483648.0, 0, &ns));
    CHECK_EQ(ns, 0);
    CHECK_OK(monostamp_ns_from_double(1.0 / 1024.0, 0, &ns));
    CHECK_EQ(ns, 976562);
    CHECK_OK(monostamp_ns_from_double(3.0 / 1024.0, 0, &ns));
    CHECK_EQ(ns, 2929688);
    /* Just below a whole second: rounds up into the next one. */
    CHECK_OK(monostamp_ns_from_double(0.9999999999, 0, &ns));
    CHECK_EQ(ns, 1000000000);
    /* Up: never shorter than asked. */
    CHECK_OK(monostamp_ns_from_double(1.0 / 2147483648.0, 1, &ns));
    CHECK_EQ(ns, 1);
    CHECK_OK(monostamp_ns_from_double(-1.0 / 2147483648.0, 1, &ns));
    CHECK_EQ(ns, 0);
    CHECK_OK(monostamp_ns_from_double(0.25, 1, &ns));
    CHECK_EQ(ns, 250000000);
    CHECK_OK(monostamp_ns_from_double(-9.2e9, 1, &ns));
    CHECK_EQ(ns, INT64_C(-9200000000000000000));
}

int main(void)
{
    RUN(test_known_days);
    RUN(test_round_trip);
    RUN(test_floor);
    RUN(test_wall_known);
    RUN(test_wall_sweep);
    RUN(test_wall_seconds_normalises);
    RUN(test_ns_from_seconds);
    RUN(test_ns_from_double);
    return check_summary();
}
