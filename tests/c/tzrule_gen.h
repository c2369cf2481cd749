/* tzrule_gen.h: random valid POSIX TZ rules and the test's own arithmetic
 * on them, for test_tzrule_glibc.c (which see).  Calendar days come from
 * glibc's timegm, not from the engine's calendar code; needs _GNU_SOURCE
 * (timegm) before the first #include.  Not for Windows. */
#ifndef MONOSTAMP_TZRULE_GEN_H
#define MONOSTAMP_TZRULE_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define YEARS 5 /* consecutive UTC years checked per rule */

/* ------------------------------------------------------------ generator */

static uint64_t rng_state = UINT64_C(0x6d6f6e6f7374616d); /* "monostam" */

/* splitmix64: small, fast and the same everywhere. */
static uint64_t rng(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t rnd(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1));
}

typedef struct gen_date {
    char kind; /* 'J', 'N', 'M' */
    int n, week, wday;
    int32_t time_s;
} gen_date;

typedef struct gen_rule {
    char text[160];
    char std_name[16], dst_name[16];
    int32_t std_east_s, dst_east_s;
    gen_date start, end;
} gen_rule;

static void put(char *buf, size_t size, const char *fmt, const char *s)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, fmt, s);
}

static void put_int(char *buf, size_t size, const char *fmt, long v)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, fmt, v);
}

/* A name of 3..6 characters, written plain or quoted; `plain` gets the name
 * as tzname[] shows it. */
static void gen_name(char *text, size_t size, char *plain)
{
    int len = (int)rnd(3, 6), quoted = rnd(0, 3) == 0;
    static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    static const char quoted_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-";
    for (int i = 0; i < len; i++)
        plain[i] = quoted ? quoted_chars[rnd(0, (int)sizeof quoted_chars - 2)]
                          : alpha[rnd(0, (int)sizeof alpha - 2)];
    plain[len] = '\0';
    put(text, size, quoted ? "<%s>" : "%s", plain);
}

/* [+-]h[:mm[:ss]] for `secs` (any sign); minutes and seconds are written
 * when not zero, and sometimes when zero. */
static void put_hms(char *text, size_t size, int32_t secs, int allow_plus)
{
    int32_t a = secs < 0 ? -secs : secs;
    int h = a / 3600, m = a / 60 % 60, s = a % 60;
    if (secs < 0) put(text, size, "%s", "-");
    else if (allow_plus && rnd(0, 3) == 0) put(text, size, "%s", "+");
    put_int(text, size, rnd(0, 1) ? "%02ld" : "%ld", h);
    if (m != 0 || s != 0 || rnd(0, 4) == 0) {
        put_int(text, size, ":%02ld", m);
        if (s != 0 || rnd(0, 4) == 0) put_int(text, size, ":%02ld", s);
    }
}

/* An offset strictly within a day; whole hours, quarter hours or seconds. */
static int32_t gen_offset(void)
{
    switch (rnd(0, 2)) {
    case 0: return (int32_t)rnd(-23, 23) * 3600;
    case 1: return (int32_t)rnd(-95, 95) * 900;
    default: return (int32_t)rnd(-86399, 86399);
    }
}

/* "/time" (or nothing: the default 02:00).  Times span -167 h..+167 h;
 * `mostly_short` keeps three in four within a day. */
static void gen_time(gen_date *d, char *text, size_t size, int mostly_short)
{
    switch (mostly_short && rnd(0, 3) ? rnd(0, 2) : rnd(0, 4)) {
    case 0:
        d->time_s = 7200; /* the default, unwritten */
        return;
    case 1: d->time_s = (int32_t)rnd(0, 24) * 3600; break;
    case 2: d->time_s = (int32_t)rnd(-86399, 86399); break;
    case 3: d->time_s = (int32_t)rnd(-167, 167) * 3600; break;
    default: d->time_s = (int32_t)rnd(-(167 * 3600 + 3599), 167 * 3600 + 3599); break;
    }
    put(text, size, "%s", "/");
    put_hms(text, size, d->time_s, 0);
}

static void gen_date_of(gen_date *d, char *text, size_t size)
{
    /* Half the dates sit near the ends of the year, where long change
     * times push a change into the neighbouring year. */
    int near_end = rnd(0, 1);
    switch (rnd(0, 2)) {
    case 0:
        d->kind = 'J';
        d->n = near_end ? (int)(rnd(0, 1) ? rnd(1, 10) : rnd(355, 365)) : (int)rnd(1, 365);
        put_int(text, size, "J%ld", d->n);
        break;
    case 1:
        d->kind = 'N';
        d->n = near_end ? (int)(rnd(0, 1) ? rnd(0, 10) : rnd(354, 365)) : (int)rnd(0, 365);
        put_int(text, size, "%ld", d->n);
        break;
    default:
        d->kind = 'M';
        d->n = near_end ? (rnd(0, 1) ? 1 : 12) : (int)rnd(1, 12);
        d->week = (int)rnd(1, 5);
        d->wday = (int)rnd(0, 6);
        put_int(text, size, "M%ld", d->n);
        put_int(text, size, ".%ld", d->week);
        put_int(text, size, ".%ld", d->wday);
        break;
    }
    gen_time(d, text, size, 0);
}

/* A date on day `doy` (0-based, counted as in a common year) written as
 * `kind`; an M date takes the week of the month holding that day and any
 * weekday, so it lands within a week of it. */
static void gen_date_on(gen_date *d, char *text, size_t size, int doy, int kind)
{
    static const int month_start[13] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};
    int m = 1;
    switch (kind) {
    case 0:
        d->kind = 'J';
        d->n = doy + 1;
        put_int(text, size, "J%ld", d->n);
        break;
    case 1:
        d->kind = 'N';
        d->n = doy;
        put_int(text, size, "%ld", d->n);
        break;
    default:
        while (month_start[m] <= doy) m++;
        d->kind = 'M';
        d->n = m;
        d->week = (doy - month_start[m - 1]) / 7 + 1;
        d->wday = (int)rnd(0, 6);
        put_int(text, size, "M%ld", d->n);
        put_int(text, size, ".%ld", d->week);
        put_int(text, size, ".%ld", d->wday);
        break;
    }
    gen_time(d, text, size, 1);
}

static void gen(gen_rule *r, int close)
{
    int32_t west;
    memset(r, 0, sizeof *r);
    gen_name(r->text, sizeof r->text, r->std_name);
    r->std_east_s = gen_offset();
    put_hms(r->text, sizeof r->text, -r->std_east_s, 1);
    gen_name(r->text, sizeof r->text, r->dst_name);
    r->dst_east_s = r->std_east_s + 3600;
    if (rnd(0, 1) || r->dst_east_s >= 86400) {
        /* Mostly one hour or so away from std; sometimes anything. */
        r->dst_east_s = rnd(0, 2) ? r->std_east_s + (int32_t)rnd(-8, 8) * 900 : gen_offset();
        if (r->dst_east_s <= -86400 || r->dst_east_s >= 86400) r->dst_east_s = r->std_east_s;
        west = -r->dst_east_s;
        put_hms(r->text, sizeof r->text, west, 1);
    }
    put(r->text, sizeof r->text, "%s", ",");
    if (!close) {
        gen_date_of(&r->start, r->text, sizeof r->text);
        put(r->text, sizeof r->text, "%s", ",");
        gen_date_of(&r->end, r->text, sizeof r->text);
        return;
    }
    /* A close pair: the same or the adjacent month, often days apart. */
    {
        int a = (int)rnd(0, 364);
        int b = a + (int)(rnd(0, 1) ? rnd(-10, 10) : rnd(-40, 40));
        b = b < 0 ? 0 : b > 364 ? 364 : b;
        gen_date_on(&r->start, r->text, sizeof r->text, a, (int)rnd(0, 2));
        put(r->text, sizeof r->text, "%s", ",");
        gen_date_on(&r->end, r->text, sizeof r->text, b, (int)rnd(0, 2));
    }
}

/* ---------------------------------------- the test's own rule arithmetic */

/* Days since 1970-01-01 of a civil date, through glibc's timegm (the
 * engine uses its own calendar code). */
static int64_t civil_days(int64_t year, int month, int day)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = (int)(year - 1900);
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    return (int64_t)timegm(&tm) / 86400;
}

static int is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int64_t local_day(const gen_date *d, int64_t year)
{
    if (d->kind == 'J') return civil_days(year, 1, 1) + d->n - 1 + (is_leap(year) && d->n >= 60);
    if (d->kind == 'N') return civil_days(year, 1, 1) + d->n;
    {
        int64_t first = civil_days(year, d->n, 1);
        int64_t next = d->n == 12 ? civil_days(year + 1, 1, 1) : civil_days(year, d->n + 1, 1);
        int64_t wday_first = ((first % 7) + 7 + 4) % 7; /* 1970-01-01 was a Thursday */
        int64_t day = first + (d->wday - wday_first + 7) % 7 + 7 * (d->week - 1);
        while (day >= next) day -= 7;
        return day;
    }
}

typedef struct year_changes {
    int64_t start_s, end_s; /* UTC instants */
} year_changes;

/* How CPython's zoneinfo (seen in 3.11.7) counts days differently from
 * POSIX: an n date one day early (POSIX: 1 January is day 0), and J59 on
 * 29 February in leap years (POSIX: J59 is always 28 February). */
static int64_t zoneinfo_shift(const gen_date *d, int64_t year)
{
    if (d->kind == 'N') return -1;
    if (d->kind == 'J' && d->n == 59 && is_leap(year)) return 1;
    return 0;
}

/* `zoneinfo_days`: with zoneinfo's day counting. */
static year_changes changes_read(const gen_rule *r, int64_t year, int zoneinfo_days)
{
    year_changes c;
    int64_t ds = zoneinfo_days ? zoneinfo_shift(&r->start, year) : 0;
    int64_t de = zoneinfo_days ? zoneinfo_shift(&r->end, year) : 0;
    c.start_s = (local_day(&r->start, year) + ds) * 86400 + r->start.time_s - r->std_east_s;
    c.end_s = (local_day(&r->end, year) + de) * 86400 + r->end.time_s - r->dst_east_s;
    return c;
}

static year_changes changes_of_uncached(const gen_rule *r, int64_t year)
{
    return changes_read(r, year, 0);
}

/* The changes of the years around those checked, computed once per rule. */
#define CACHE_BEFORE 5
#define CACHE_YEARS (YEARS + 2 * CACHE_BEFORE)
static year_changes cache[CACHE_YEARS];
static int64_t cache_first_year;

static void fill_cache(const gen_rule *r, int64_t first_year)
{
    cache_first_year = first_year - CACHE_BEFORE;
    for (int i = 0; i < CACHE_YEARS; i++) cache[i] = changes_of_uncached(r, cache_first_year + i);
}

static year_changes changes_of(const gen_rule *r, int64_t year)
{
    if (year >= cache_first_year && year < cache_first_year + CACHE_YEARS)
        return cache[year - cache_first_year];
    return changes_of_uncached(r, year);
}

static int64_t utc_year(int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    return (int64_t)tm.tm_year + 1900;
}

/* How an instant is judged (see the comment at the top). */
enum { SAME_YEAR, OTHER_YEAR, BEFORE_1971 };

/* Whether t's own UTC year's two changes alone decide the offset at t, as
 * both oracles assume: every change of an earlier rule year lies at or
 * before t, every change of a later one after t. */
static int judge(const gen_rule *r, int64_t t)
{
    int64_t y = utc_year(t);
    if (y < 1971) return BEFORE_1971;
    /* A change lies within 167 h + 1 day + 24 h of its nominal year, so
     * years further away than these never reach t's year. */
    for (int64_t k = y - 2; k <= y + 2; k++) {
        year_changes c;
        if (k == y) continue;
        c = changes_of(r, k);
        if (k < y && (c.start_s > t || c.end_s > t)) return OTHER_YEAR;
        if (k > y && (c.start_s <= t || c.end_s <= t)) return OTHER_YEAR;
    }
    return SAME_YEAR;
}

/* POSIX's reading of t's UTC year (posix_offset): DST from start to end,
 * and, if the end comes earlier in the year than the start, DST except from
 * end to start (the year begins and ends in DST).  Equal instants: the end
 * is not earlier, so DST lasts no time at all. */
/* The offset at t by t's UTC year alone.  `zoneinfo_days`: with zoneinfo's
 * day counting; `tie_is_dst`: a year whose start and end fall on the same
 * instant read as DST all year, as zoneinfo does (it treats "start not
 * before end" as an end-first year; glibc and POSIX see no DST). */
static int32_t year_offset(const gen_rule *r, int64_t t, int zoneinfo_days, int tie_is_dst)
{
    year_changes c = zoneinfo_days ? changes_read(r, utc_year(t), 1) : changes_of(r, utc_year(t));
    int end_first = tie_is_dst ? c.end_s <= c.start_s : c.end_s < c.start_s;
    int dst = end_first ? !(c.end_s <= t && t < c.start_s) : (c.start_s <= t && t < c.end_s);
    return dst ? r->dst_east_s : r->std_east_s;
}

static int32_t posix_offset(const gen_rule *r, int64_t t) { return year_offset(r, t, 0, 0); }

#endif
