/* calendar.h: proleptic Gregorian calendar arithmetic on integers.
 *
 * Pure functions, no libc time calls (gmtime/localtime shift by leap seconds
 * under right/ zones and stop at 2038 with a 32-bit time_t).  Days count
 * from 1970-01-01 (day 0); the algorithms are Howard Hinnant's
 * days_from_civil / civil_from_days, valid far beyond the years 1..9999
 * used here. */
#ifndef MONOSTAMP_CALENDAR_H
#define MONOSTAMP_CALENDAR_H

#include "config.h"

MONOSTAMP__HIDDEN_BEGIN

#define MONOSTAMP__S_PER_DAY INT64_C(86400)

/* 1 if `year` is a Gregorian leap year. */
int monostamp__is_leap(int64_t year);
/* Days in `month` (1..12) of `year`; 0 for a month out of range. */
int monostamp__days_in_month(int64_t year, int month);
/* Days since 1970-01-01 of year/month/day.  |year| must stay below 2^40
 * (no overflow); month 1..12, day 1..31 (not checked against the month). */
int64_t monostamp__days_from_civil(int64_t year, int month, int day);
/* The civil date of `days` since 1970-01-01; |days| below 2^45. */
void monostamp__civil_from_days(int64_t days, int64_t *year, int *month,
                                int *day);
/* Day of the week of `days` since 1970-01-01: 0 = Sunday .. 6. */
int monostamp__weekday(int64_t days);

/* Floor division and the matching non-negative remainder (b > 0). */
static inline int64_t monostamp__floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b < 0) ? q - 1 : q;
}
static inline int64_t monostamp__floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

/* s * 1e9 clamped to [INT64_MIN, INT64_MAX]: window ends past the ns range
 * become "forever". */
static inline int64_t monostamp__s_to_ns_sat(int64_t s)
{
    if (s > INT64_MAX / MONOSTAMP__NS_PER_S) return INT64_MAX;
    if (s < INT64_MIN / MONOSTAMP__NS_PER_S) return INT64_MIN;
    return s * MONOSTAMP__NS_PER_S;
}

/* monostamp_wall_fields without the NULL check, inline: the core's own hot
 * callers (ISO 8601 text) let the compiler drop the fields they never
 * read. */
static inline void monostamp__wall_fields(int64_t utc_ns, int32_t offset_s, monostamp_wall *out)
{
    /* |utc_ns / 1e9| < 2^34 and |offset_s| < 2^31: no overflow, and the
     * year stays within 1609..2330. */
    int64_t local_s = monostamp__floor_div(utc_ns, MONOSTAMP__NS_PER_S) + offset_s;
    int64_t days = monostamp__floor_div(local_s, MONOSTAMP__S_PER_DAY);
    int64_t sod = local_s - days * MONOSTAMP__S_PER_DAY;
    /* monostamp__civil_from_days, written out for the day of the year it
     * finds on the way. */
    int64_t z = days + 719468;
    int64_t era = monostamp__floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100); /* from 1 March: 0..365 */
    int64_t mp = (5 * doy + 2) / 153;
    int month = (int)(mp < 10 ? mp + 3 : mp - 9);
    int year = (int)(yoe + era * 400 + (month <= 2));
    out->year = year;
    out->month = month;
    out->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    out->hour = (int)(sod / 3600);
    out->minute = (int)(sod / 60 % 60);
    out->second = (int)(sod % 60);
    out->nanosecond = (int32_t)monostamp__floor_mod(utc_ns, MONOSTAMP__NS_PER_S);
    /* ISO 8601: Monday 1 .. Sunday 7; 1970-01-01 was a Thursday. */
    out->weekday = (int)monostamp__floor_mod(days + 3, 7) + 1;
    /* January and February end the March-based year; 1 March follows the
     * 59 or 60 days before it. */
    out->yday = (int)(doy >= 306 ? doy - 305 : doy + 60 + monostamp__is_leap(year));
}

MONOSTAMP__HIDDEN_END

#endif
