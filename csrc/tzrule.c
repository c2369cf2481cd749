/* tzrule.c: parse and evaluate POSIX TZ strings (see tzrule.h). */
#include "config.h"

#include "tzrule.h"

#include "calendar.h"

typedef struct cursor {
    const char *p, *end;
} cursor;

static int peek(const cursor *c)
{
    return c->p < c->end ? (unsigned char)*c->p : -1;
}

static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }
static int is_alpha(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Reads 1..3 digits into *out; more digits would be absurd anywhere here. */
static int parse_uint(cursor *c, int max_digits, int *out)
{
    int v = 0, n = 0;
    while (n < max_digits && is_digit(peek(c))) {
        v = v * 10 + (*c->p++ - '0');
        n++;
    }
    if (n == 0 || is_digit(peek(c))) return -1;
    *out = v;
    return 0;
}

/* A zone abbreviation: 3+ letters, or <...> of letters, digits, + and -. */
static int parse_name(cursor *c)
{
    int n = 0;
    if (peek(c) == '<') {
        c->p++;
        for (;;) {
            int ch = peek(c);
            if (ch == '>') break;
            if (!(is_alpha(ch) || is_digit(ch) || ch == '+' || ch == '-')) return -1;
            c->p++;
            n++;
        }
        c->p++; /* '>' */
    } else {
        while (is_alpha(peek(c))) {
            c->p++;
            n++;
        }
    }
    return n >= 3 ? 0 : -1;
}

/* Strictly within a day either way: the rule every stamp's offset keeps. */
static int offset_ok(int32_t offset_s)
{
    return monostamp_offset_check(offset_s) == MONOSTAMP_OK;
}

/* [+-]hh[:mm[:ss]] with hh <= max_h; returns seconds in POSIX sense
 * (positive west for offsets, plain for times). */
static int parse_hms(cursor *c, int max_h, int32_t *out)
{
    int sign = 1, h, m = 0, s = 0;
    if (peek(c) == '+' || peek(c) == '-') sign = (*c->p++ == '-') ? -1 : 1;
    if (parse_uint(c, 3, &h) != 0 || h > max_h) return -1;
    if (peek(c) == ':') {
        c->p++;
        if (parse_uint(c, 2, &m) != 0 || m > 59) return -1;
        if (peek(c) == ':') {
            c->p++;
            if (parse_uint(c, 2, &s) != 0 || s > 59) return -1;
        }
    }
    *out = sign * (h * 3600 + m * 60 + s);
    return 0;
}

static int parse_date(cursor *c, monostamp__tzrule_date *d)
{
    int a, b, w;
    if (peek(c) == 'J') {
        c->p++;
        if (parse_uint(c, 3, &a) != 0 || a < 1 || a > 365) return -1;
        d->kind = 'J';
        d->n = (int16_t)a;
    } else if (peek(c) == 'M') {
        c->p++;
        if (parse_uint(c, 2, &a) != 0 || a < 1 || a > 12) return -1;
        if (peek(c) != '.') return -1;
        c->p++;
        if (parse_uint(c, 1, &b) != 0 || b < 1 || b > 5) return -1;
        if (peek(c) != '.') return -1;
        c->p++;
        if (parse_uint(c, 1, &w) != 0 || w > 6) return -1;
        d->kind = 'M';
        d->n = (int16_t)a;
        d->week = (int16_t)b;
        d->wday = (int16_t)w;
    } else {
        if (parse_uint(c, 3, &a) != 0 || a > 365) return -1;
        d->kind = 'N';
        d->n = (int16_t)a;
    }
    d->time_s = 7200; /* POSIX default 02:00:00 */
    if (peek(c) == '/') {
        c->p++;
        if (parse_hms(c, 167, &d->time_s) != 0) return -1;
    }
    return 0;
}

int monostamp__tzrule_parse(const char *text, size_t len,
                            monostamp__tzrule *out)
{
    cursor c = {text, text + len};
    monostamp__tzrule r = {0};
    int32_t west;
    if (text == NULL || out == NULL) return -1;
    if (parse_name(&c) != 0) return -1;
    if (parse_hms(&c, 24, &west) != 0) return -1;
    r.std_offset_s = -west;
    r.dst_offset_s = r.std_offset_s;
    if (!offset_ok(r.std_offset_s)) return -1;
    if (c.p == c.end) {
        *out = r;
        return 0;
    }
    if (parse_name(&c) != 0) return -1;
    r.has_dst = 1;
    r.dst_offset_s = r.std_offset_s + 3600;
    if (peek(&c) != ',' && c.p != c.end) {
        if (parse_hms(&c, 24, &west) != 0) return -1;
        r.dst_offset_s = -west;
    }
    if (c.p == c.end) {
        /* No rules: the US rules, as glibc does without posixrules. */
        r.start = (monostamp__tzrule_date){'M', 3, 2, 0, 7200};
        r.end = (monostamp__tzrule_date){'M', 11, 1, 0, 7200};
    } else {
        if (peek(&c) != ',') return -1;
        c.p++;
        if (parse_date(&c, &r.start) != 0) return -1;
        if (peek(&c) != ',') return -1;
        c.p++;
        if (parse_date(&c, &r.end) != 0) return -1;
        if (c.p != c.end) return -1;
    }
    if (r.dst_offset_s == r.std_offset_s) r.has_dst = 0; /* nothing ever changes */
    /* POSIX allows hh up to 24 (and DST one hour ahead of that), but an
     * offset of 24 h or more has no ISO 8601 form and no Python timezone:
     * refused, as the TZif reader refuses it. */
    if (!offset_ok(r.dst_offset_s)) return -1;
    *out = r;
    return 0;
}

/* The local (wall) second of `year` at which date `d` happens, counted
 * from 1970-01-01T00:00 of that local time scale. */
static int64_t date_local_s(const monostamp__tzrule_date *d, int64_t year)
{
    int64_t days;
    if (d->kind == 'J') {
        days = monostamp__days_from_civil(year, 1, 1) + d->n - 1 +
               (monostamp__is_leap(year) && d->n >= 60);
    } else if (d->kind == 'N') {
        days = monostamp__days_from_civil(year, 1, 1) + d->n;
    } else {
        int64_t first = monostamp__days_from_civil(year, d->n, 1);
        int mdays = monostamp__days_in_month(year, d->n);
        int dom = (d->wday - monostamp__weekday(first) + 7) % 7 + (d->week - 1) * 7;
        while (dom >= mdays) dom -= 7; /* week 5 means the last one */
        days = first + dom;
    }
    return days * MONOSTAMP__S_PER_DAY + d->time_s;
}

/* The header's bound on |t|: 2^40 s is 34,000 years, so days, years and
 * seconds below stay far inside int64_t. */
#define TZRULE_LIMIT_S (INT64_C(1) << 40)

/* How far a window is widened into the neighbouring years (see below). */
#define MERGE_YEARS 2

/* The state in force at t_s, read from t's own UTC year alone, as glibc
 * (__tz_compute) and Python's zoneinfo read it: that year's two changes as
 * UTC instants, which a change time of up to +-167 h (and the offset) may
 * carry into the previous or the next year.  DST holds from start to end;
 * if the end comes before the start, the year begins and ends in DST and
 * holds standard time from end to start (POSIX.1-2024); equal instants are
 * no DST.  So the state changes only at the year's two changes and at its
 * ends, where the next year's reading takes over (a change pushed out of
 * its year decides nothing in the year it lands in: tzcode's localtime.c
 * lays the changes out year by year instead, which differs from glibc in
 * the days between 1 January and such a change).  Sets the year's span
 * [*from_s, *until_s) of instants around t over which the state holds. */
static int state_in_year(const monostamp__tzrule *rule, int64_t t_s, int64_t *from_s,
                         int64_t *until_s)
{
    int64_t year, jan1, next_jan1, start, end, changes[2];
    int month, day, dst;
    monostamp__civil_from_days(monostamp__floor_div(t_s, MONOSTAMP__S_PER_DAY), &year, &month,
                               &day);
    jan1 = monostamp__days_from_civil(year, 1, 1) * MONOSTAMP__S_PER_DAY;
    next_jan1 = monostamp__days_from_civil(year + 1, 1, 1) * MONOSTAMP__S_PER_DAY;
    /* The start is given in standard time, the end in DST. */
    start = date_local_s(&rule->start, year) - rule->std_offset_s;
    end = date_local_s(&rule->end, year) - rule->dst_offset_s;
    dst = end < start ? !(end <= t_s && t_s < start) : (start <= t_s && t_s < end);
    *from_s = jan1;
    *until_s = next_jan1;
    changes[0] = start;
    changes[1] = end;
    for (int i = 0; i < 2; i++) {
        if (changes[i] <= t_s && changes[i] > *from_s) *from_s = changes[i];
        if (changes[i] > t_s && changes[i] < *until_s) *until_s = changes[i];
    }
    return dst;
}

void monostamp__tzrule_window(const monostamp__tzrule *rule, int64_t t_s,
                              int32_t *offset_s, int64_t *from_s,
                              int64_t *until_s)
{
    int cur;
    if (!rule->has_dst) {
        *offset_s = rule->std_offset_s;
        *from_s = INT64_MIN;
        *until_s = INT64_MAX;
        return;
    }
    /* Out of the range the header promises, answer for its edge and a
     * one-second window: no year arithmetic below can overflow. */
    if (t_s <= -TZRULE_LIMIT_S || t_s >= TZRULE_LIMIT_S) {
        int64_t edge = t_s < 0 ? -TZRULE_LIMIT_S + 1 : TZRULE_LIMIT_S - 1;
        int64_t f, u;
        monostamp__tzrule_window(rule, edge, offset_s, &f, &u);
        *from_s = t_s;
        *until_s = t_s == INT64_MAX ? INT64_MAX : t_s + 1;
        return;
    }
    cur = state_in_year(rule, t_s, from_s, until_s);
    /* A window that ends at a year's end carries on into the next year
     * while the state there is the same (a rule whose DST runs from
     * October to March is in standard time from March to October, in one
     * window; each 1 January is a slow-path miss the window spares), up to
     * MERGE_YEARS years either way: narrower is allowed, wider never. */
    for (int i = 0; i < MERGE_YEARS; i++) {
        int64_t f, u;
        if (state_in_year(rule, *until_s, &f, &u) != cur || f != *until_s) break;
        *until_s = u;
    }
    for (int i = 0; i < MERGE_YEARS; i++) {
        int64_t f, u;
        if (state_in_year(rule, *from_s - 1, &f, &u) != cur || u != *from_s) break;
        *from_s = f;
    }
    *offset_s = cur ? rule->dst_offset_s : rule->std_offset_s;
}
