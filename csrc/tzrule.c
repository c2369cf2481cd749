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

/* Strictly within a day either way. */
static int offset_ok(int32_t offset_s)
{
    return offset_s > -86400 && offset_s < 86400;
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

typedef struct event {
    int64_t at_s; /* UTC second of the change */
    int dst;      /* state from then on */
} event;

/* Appends `x` to the changes in force, `ev[0..*n)`, which ascend strictly
 * by instant.  The changes arrive in rule order (year by year, each year's
 * two in their order), and a change that comes later in that order takes
 * effect from its instant even if an earlier one in the order is scheduled
 * at or after it: that earlier one is void, for the later change has
 * already decided the state.  So a year whose DST runs past the next
 * year's start (XXX3YYY,0/0,365/25: DST from 1 January to 2 January of the
 * next year) leaves DST on, instead of letting its end, sorted after the
 * next start, switch DST off for the rest of that year. */
static void push_change(event *ev, int *n, event x)
{
    while (*n > 0 && ev[*n - 1].at_s >= x.at_s) (*n)--;
    ev[(*n)++] = x;
}

/* Year y's two changes as UTC instants; 1 if the end comes before the
 * start, so that DST holds outside [end, start) that year. */
static int year_changes(const monostamp__tzrule *rule, int64_t y, event *s, event *e)
{
    /* The start is given in standard time, the end in DST. */
    s->at_s = date_local_s(&rule->start, y) - rule->std_offset_s;
    s->dst = 1;
    e->at_s = date_local_s(&rule->end, y) - rule->dst_offset_s;
    e->dst = 0;
    return e->at_s < s->at_s;
}

void monostamp__tzrule_window(const monostamp__tzrule *rule, int64_t t_s,
                              int32_t *offset_s, int64_t *from_s,
                              int64_t *until_s)
{
    /* The changes of five years around t's UTC year Y.  A change lies at
     * most 167 h + 1 day + 24 h from its nominal year (time, day 365 of a
     * common year, offset), so the changes of year Y-2 all precede Y and
     * none of Y+3's precede Y+2: the list below is the true list of changes
     * in force up to the start of year Y+2, which bounds the window. */
    enum { SPAN = 2, N = 3 * (2 * SPAN + 1) };
    event ev[N];
    int n = 0, i, last = -1, cur, prev_reversed;
    int64_t year, horizon_s;
    int month, day;
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
    monostamp__civil_from_days(monostamp__floor_div(t_s, MONOSTAMP__S_PER_DAY),
                               &year, &month, &day);
    {
        event s, e;
        prev_reversed = year_changes(rule, year - SPAN - 1, &s, &e);
    }
    for (int64_t y = year - SPAN; y <= year + SPAN; y++) {
        event s, e;
        int reversed = year_changes(rule, y, &s, &e);
        /* POSIX decides the order per year: when the end comes first, the
         * year begins (and ends) in DST.  So an end-first year gets a change
         * to DST at its first instant, whatever came before (voiding any
         * change of the year before pushed past it), and a start-first year
         * after an end-first one a change to standard time.  The year's
         * first instant is 00:00 UTC, where glibc and zoneinfo both begin
         * the rule's year (POSIX does not say which clock's midnight).  Two
         * start-first years in a row need no such change, so a DST period
         * that runs past 1 January (EST5EDT,0/0,J365/25) carries on as
         * RFC 8536 reads it. */
        if (reversed || prev_reversed) {
            event j = {monostamp__days_from_civil(y, 1, 1) * MONOSTAMP__S_PER_DAY, reversed};
            push_change(ev, &n, j);
        }
        /* Within a year the changes go in order of instant, as glibc and
         * tzcode order them; at equal instants the start goes first, so
         * the end voids it: a zero-length DST period is no DST. */
        if (reversed) {
            push_change(ev, &n, e);
            push_change(ev, &n, s);
        } else {
            push_change(ev, &n, s);
            push_change(ev, &n, e);
        }
        prev_reversed = reversed;
    }
    /* Year Y+2 starts at least 365 days after t; past it, year Y+3's
     * changes (not computed) could void ours, so the window stops there. */
    horizon_s = monostamp__days_from_civil(year + SPAN, 1, 1) * MONOSTAMP__S_PER_DAY;
    for (i = 0; i < n; i++)
        if (ev[i].at_s <= t_s) last = i;
    /* last >= 0 always holds given SPAN (year Y-2's changes precede Y and
     * only ever give way to earlier ones); stay safe regardless. */
    cur = last >= 0 ? ev[last].dst : ev[0].dst ^ 1;
    *offset_s = cur ? rule->dst_offset_s : rule->std_offset_s;
    /* The window runs from the latest change into `cur` to the next change
     * out of it; unseen ends are clipped to the span (narrower is fine). */
    *from_s = ev[0].at_s;
    for (i = last; i >= 1; i--) {
        if (ev[i].dst == cur && ev[i - 1].dst != cur) {
            *from_s = ev[i].at_s;
            break;
        }
    }
    if (last < 0) *from_s = t_s;
    *until_s = horizon_s;
    for (i = last + 1; i < n; i++) {
        if (ev[i].dst != cur) {
            if (ev[i].at_s < *until_s) *until_s = ev[i].at_s;
            break;
        }
    }
    if (*until_s <= t_s) *until_s = t_s + 1;
    if (*from_s > t_s) *from_s = t_s;
}
