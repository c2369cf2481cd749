/* test_calendar.c: the integer calendar against known dates and itself. */
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

int main(void)
{
    RUN(test_known_days);
    RUN(test_round_trip);
    RUN(test_floor);
    return check_summary();
}
