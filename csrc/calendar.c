/* calendar.c: Gregorian date <-> day number, integers only (see calendar.h). */
#include "config.h"

#include "calendar.h"

int monostamp__is_leap(int64_t year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int monostamp__days_in_month(int64_t year, int month)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12) return 0;
    return days[month - 1] + (month == 2 && monostamp__is_leap(year));
}

/* Years are shifted to start in March so that the leap day ends the year;
 * an era is 400 years = 146097 days. */
int64_t monostamp__days_from_civil(int64_t year, int month, int day)
{
    int64_t y = year - (month <= 2);
    int64_t era = monostamp__floor_div(y, 400);
    int64_t yoe = y - era * 400;                                  /* 0..399 */
    int64_t mp = (month + 9) % 12;                                /* March = 0 */
    int64_t doy = (153 * mp + 2) / 5 + day - 1;                   /* 0..365 */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;          /* 0..146096 */
    return era * 146097 + doe - 719468;
}

void monostamp__civil_from_days(int64_t days, int64_t *year, int *month,
                                int *day)
{
    int64_t z = days + 719468;
    int64_t era = monostamp__floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1);
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (m <= 2);
    *month = m;
    *day = d;
}

int monostamp__weekday(int64_t days)
{
    return (int)monostamp__floor_mod(days + 4, 7); /* 1970-01-01 was a Thursday */
}

int monostamp_wall_fields(int64_t utc_ns, int32_t offset_s, monostamp_wall *out)
{
    if (out == NULL) return MONOSTAMP_EINVAL;
    monostamp__wall_fields(utc_ns, offset_s, out);
    return MONOSTAMP_OK;
}

int64_t monostamp_wall_seconds(const monostamp_wall *w)
{
    return monostamp__days_from_civil(w->year, w->month, w->day) * MONOSTAMP__S_PER_DAY +
           (int64_t)w->hour * 3600 + (int64_t)w->minute * 60 + w->second;
}

#define NS_PER_S INT64_C(1000000000)
/* 2**63 is exact in a double; a cast to int64 is defined only strictly
 * inside (-2**63, 2**63), and NaN is outside all. */
#define TWO_63 9223372036854775808.0

int monostamp_ns_from_seconds(int64_t s, int64_t sub_ns, int64_t *out_ns)
{
    if (out_ns == NULL || sub_ns < 0 || sub_ns >= NS_PER_S) return MONOSTAMP_EINVAL;
    /* Before the epoch, borrow a second: INT64_MIN's seconds alone do not fit. */
    if (s < 0 && sub_ns > 0) {
        s += 1;
        sub_ns -= NS_PER_S;
    }
    if (s > INT64_MAX / NS_PER_S || s < INT64_MIN / NS_PER_S) return MONOSTAMP_ERANGE;
    int64_t base = s * NS_PER_S;
    if (sub_ns > 0 ? base > INT64_MAX - sub_ns : base < INT64_MIN - sub_ns)
        return MONOSTAMP_ERANGE;
    *out_ns = base + sub_ns;
    return MONOSTAMP_OK;
}

/* The largest integer <= x, for -2**63 <= x < 2**63. */
static int64_t floor_s(double x)
{
    int64_t t = (int64_t)x; /* toward zero */
    return (double)t > x ? t - 1 : t;
}

int monostamp_ns_from_double(double s, int round_up, int64_t *out_ns)
{
    if (out_ns == NULL) return MONOSTAMP_EINVAL;
    if (round_up) {
        double ns = s * 1e9;
        /* At or beyond 2**52 a double is whole: no fraction to round up. */
        if (!(ns >= -TWO_63 && ns < TWO_63)) return MONOSTAMP_ERANGE;
        int64_t n = (int64_t)ns; /* toward zero: up already if negative */
        *out_ns = (double)n < ns ? n + 1 : n;
        return MONOSTAMP_OK;
    }
    if (!(s >= -TWO_63 && s < TWO_63)) return MONOSTAMP_ERANGE;
    /* floor(s) and the fraction are exact in doubles; only the ns are
     * rounded (the fraction * 1e9 is below 2**30: its own fraction exact). */
    int64_t whole = floor_s(s);
    double sub = (s - (double)whole) * 1e9;
    int64_t n = (int64_t)sub;
    double rest = sub - (double)n;
    if (rest > 0.5 || (rest == 0.5 && (n & 1) != 0)) n += 1;
    if (n >= NS_PER_S) { /* a fraction that rounds up to a whole second */
        if (whole == INT64_MAX) return MONOSTAMP_ERANGE;
        whole += 1;
        n = 0;
    }
    return monostamp_ns_from_seconds(whole, n, out_ns);
}
