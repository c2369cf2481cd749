/* iso8601.c: RFC 3339 text <-> (utc_ns, offset_s), exactly, with our own
 * calendar arithmetic (no gmtime, no strftime). */
#include "config.h"

#include <string.h>

#include "calendar.h"

/* The int64 ns range in whole seconds: [-9223372037, 9223372036], the ends
 * only partly (see fits_ns). */
#define MIN_S INT64_C(-9223372037)
#define MAX_S INT64_C(9223372036)

static void put2(char *p, int v)
{
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
}

int monostamp_format_iso8601(char *buf, size_t size, int64_t utc_ns,
                             int32_t offset_s, int digits, int use_z)
{
    char tmp[MONOSTAMP_ISO8601_MAX + 1];
    monostamp_wall w;
    int32_t frac, aoff;
    int len, i;
    char *p = tmp;
    /* Hours and minutes alone: the text of 0 digits, cut (below). */
    int cut = digits == MONOSTAMP_ISO8601_HOURS ? 6 : digits == MONOSTAMP_ISO8601_MINUTES ? 3 : 0;

    if (cut > 0) digits = 0;
    if (digits < 0 || digits > 9) return MONOSTAMP_EINVAL;
    /* RFC 3339 offsets are whole minutes below 24 h (Monrovia's -00:44:30
     * has no RFC 3339 form). */
    if (offset_s % 60 != 0 || monostamp_offset_check(offset_s) != MONOSTAMP_OK)
        return MONOSTAMP_EINVAL;
    if (buf == NULL && size > 0) return MONOSTAMP_EINVAL;
    monostamp__wall_fields(utc_ns, offset_s, &w);
    frac = w.nanosecond;
    /* The text truncates to `digits`; an instant whose truncation falls
     * below INT64_MIN ns (the first µs of 1677-09-21T00:12:43.145224192Z)
     * would print text that no parse can take back: refuse it here, as the
     * parser refuses that text. */
    {
        int32_t unit = 1;
        for (i = digits; i < 9; i++) unit *= 10;
        if (utc_ns < INT64_MIN + frac % unit) return MONOSTAMP_ERANGE;
    }
    if (w.year < 1 || w.year > 9999) return MONOSTAMP_ERANGE;
    len = 19 + (digits > 0 ? digits + 1 : 0) + (use_z && offset_s == 0 ? 1 : 6);
    if (size < (size_t)(len - cut)) return MONOSTAMP_ERANGE;

    put2(p, w.year / 100);
    put2(p + 2, w.year % 100);
    p[4] = '-';
    put2(p + 5, w.month);
    p[7] = '-';
    put2(p + 8, w.day);
    p[10] = 'T';
    put2(p + 11, w.hour);
    p[13] = ':';
    put2(p + 14, w.minute);
    p[16] = ':';
    put2(p + 17, w.second);
    p += 19;
    if (digits > 0) {
        *p++ = '.';
        int32_t f = frac;
        for (i = digits; i < 9; i++) f /= 10; /* truncate, never round */
        for (i = digits - 1; i >= 0; i--) {
            p[i] = (char)('0' + f % 10);
            f /= 10;
        }
        p += digits;
    }
    if (use_z && offset_s == 0) {
        *p++ = 'Z';
    } else {
        aoff = offset_s < 0 ? -offset_s : offset_s;
        *p++ = offset_s < 0 ? '-' : '+';
        put2(p, aoff / 3600);
        p[2] = ':';
        put2(p + 3, aoff / 60 % 60);
        p += 5;
    }
    if (cut > 0) {
        /* "YYYY-MM-DDThh:mm:ss": the fields sit at fixed places (the year
         * is four digits); drop ":ss", or ":mm:ss". */
        memmove(tmp + 19 - cut, tmp + 19, (size_t)(len - 19));
        len -= cut;
    }
    memcpy(buf, tmp, (size_t)len);
    if (size > (size_t)len) buf[len] = '\0';
    return len;
}

int monostamp_iso8601_timespec(const char *name, int64_t utc_ns, int *out_digits)
{
    static const struct {
        const char *name;
        int digits;
    } specs[] = {
        {"hours", MONOSTAMP_ISO8601_HOURS}, {"minutes", MONOSTAMP_ISO8601_MINUTES},
        {"seconds", 0}, {"milliseconds", 3}, {"microseconds", 6}, {"nanoseconds", 9},
    };
    if (name == NULL || out_digits == NULL) return MONOSTAMP_EINVAL;
    if (strcmp(name, "auto") == 0) {
        *out_digits = utc_ns % 1000000000 != 0 ? 9 : 0;
        return MONOSTAMP_OK;
    }
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        if (strcmp(name, specs[i].name) == 0) {
            *out_digits = specs[i].digits;
            return MONOSTAMP_OK;
        }
    }
    return MONOSTAMP_EINVAL;
}

typedef struct parser {
    const char *s;
    size_t len, pos;
    monostamp_parse_error *error;
} parser;

static int fail(parser *ps, size_t pos, const char *reason, int code)
{
    if (ps->error != NULL) {
        ps->error->position = pos;
        ps->error->reason = reason;
    }
    return code;
}

static int at(const parser *ps, size_t i)
{
    return i < ps->len ? (unsigned char)ps->s[i] : -1;
}

static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }

/* Exactly n digits at the cursor into *out; else fails at the first
 * non-digit. */
static int number(parser *ps, int n, const char *reason, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        int ch = at(ps, ps->pos + (size_t)i);
        if (!is_digit(ch)) return fail(ps, ps->pos + (size_t)i, reason, MONOSTAMP_ESYNTAX);
        v = v * 10 + (ch - '0');
    }
    ps->pos += (size_t)n;
    *out = v;
    return 0;
}

static int expect(parser *ps, char ch, const char *reason)
{
    if (at(ps, ps->pos) != (unsigned char)ch)
        return fail(ps, ps->pos, reason, MONOSTAMP_ESYNTAX);
    ps->pos++;
    return 0;
}

/* A field whose digits parsed but whose value is out of range. */
static int range(parser *ps, int v, int lo, int hi, size_t pos, const char *reason)
{
    return (v < lo || v > hi) ? fail(ps, pos, reason, MONOSTAMP_ESYNTAX) : 0;
}

#define TRY(x)                  \
    do {                        \
        int rc_ = (x);          \
        if (rc_ != 0) return rc_; \
    } while (0)

int monostamp_parse_iso8601(const char *text, size_t len, int64_t *out_utc_ns,
                            int32_t *out_offset_s, monostamp_parse_error *error)
{
    parser ps = {text, len, 0, error};
    int year, month, day, hour, minute, second, oh = 0, om = 0, sign = 1, nfrac = 0;
    int32_t frac = 0, offset;
    int64_t local_s, utc_s, ns;
    size_t p;

    if (text == NULL && len > 0) return MONOSTAMP_EINVAL;
    p = ps.pos;
    TRY(number(&ps, 4, "expected a 4-digit year", &year));
    if (year == 0) return fail(&ps, p, "year 0000 is outside 0001..9999", MONOSTAMP_ERANGE);
    TRY(expect(&ps, '-', "expected '-' after the year"));
    p = ps.pos;
    TRY(number(&ps, 2, "expected a 2-digit month", &month));
    TRY(range(&ps, month, 1, 12, p, "month out of range 01..12"));
    TRY(expect(&ps, '-', "expected '-' after the month"));
    p = ps.pos;
    TRY(number(&ps, 2, "expected a 2-digit day", &day));
    TRY(range(&ps, day, 1, monostamp__days_in_month(year, month), p,
              "day out of range for the month"));
    if (at(&ps, ps.pos) != 'T' && at(&ps, ps.pos) != 't' && at(&ps, ps.pos) != ' ')
        return fail(&ps, ps.pos, "expected 'T', 't' or ' ' between date and time",
                    MONOSTAMP_ESYNTAX);
    ps.pos++;
    p = ps.pos;
    TRY(number(&ps, 2, "expected a 2-digit hour", &hour));
    TRY(range(&ps, hour, 0, 23, p, "hour out of range 00..23"));
    TRY(expect(&ps, ':', "expected ':' between hour and minute"));
    p = ps.pos;
    TRY(number(&ps, 2, "expected a 2-digit minute", &minute));
    TRY(range(&ps, minute, 0, 59, p, "minute out of range 00..59"));
    TRY(expect(&ps, ':', "expected ':' between minute and second"));
    p = ps.pos;
    TRY(number(&ps, 2, "expected a 2-digit second", &second));
    if (second == 60) return fail(&ps, p, "leap second 60 is not supported", MONOSTAMP_ESYNTAX);
    TRY(range(&ps, second, 0, 59, p, "second out of range 00..59"));
    if (at(&ps, ps.pos) == '.') {
        ps.pos++;
        if (!is_digit(at(&ps, ps.pos)))
            return fail(&ps, ps.pos, "expected a digit after '.'", MONOSTAMP_ESYNTAX);
        while (is_digit(at(&ps, ps.pos))) {
            if (nfrac == 9)
                return fail(&ps, ps.pos, "more than 9 fractional digits", MONOSTAMP_ESYNTAX);
            frac = frac * 10 + (at(&ps, ps.pos) - '0');
            nfrac++;
            ps.pos++;
        }
        for (int i = nfrac; i < 9; i++) frac *= 10;
    }
    switch (at(&ps, ps.pos)) {
    case 'Z':
    case 'z':
        ps.pos++;
        break;
    case '+':
    case '-':
        sign = at(&ps, ps.pos) == '-' ? -1 : 1;
        ps.pos++;
        p = ps.pos;
        TRY(number(&ps, 2, "expected a 2-digit offset hour", &oh));
        TRY(range(&ps, oh, 0, 23, p, "offset hour out of range 00..23"));
        if (at(&ps, ps.pos) == ':') ps.pos++;
        p = ps.pos;
        TRY(number(&ps, 2, "expected a 2-digit offset minute", &om));
        TRY(range(&ps, om, 0, 59, p, "offset minute out of range 00..59"));
        break;
    default:
        return fail(&ps, ps.pos, "expected 'Z', '+' or '-' (the UTC offset)", MONOSTAMP_ESYNTAX);
    }
    if (ps.pos != len)
        return fail(&ps, ps.pos, "unexpected text after the offset", MONOSTAMP_ESYNTAX);

    offset = sign * (oh * 3600 + om * 60);
    local_s = monostamp__days_from_civil(year, month, day) * MONOSTAMP__S_PER_DAY +
              hour * 3600 + minute * 60 + second;
    utc_s = local_s - offset;
    /* utc_s * 1e9 + frac must fit in int64, exactly at both ends. */
    if (utc_s < MIN_S || utc_s > MAX_S ||
        (utc_s == MIN_S && frac < 145224192) || (utc_s == MAX_S && frac > 854775807))
        return fail(&ps, 0, "instant outside the int64 nanosecond range (1677..2262)",
                    MONOSTAMP_ERANGE);
    /* Near INT64_MIN, utc_s * 1e9 alone would overflow: step from above. */
    ns = utc_s < 0 ? (utc_s + 1) * MONOSTAMP__NS_PER_S + (frac - MONOSTAMP__NS_PER_S)
                   : utc_s * MONOSTAMP__NS_PER_S + frac;
    if (out_utc_ns != NULL) *out_utc_ns = ns;
    if (out_offset_s != NULL) *out_offset_s = offset;
    return MONOSTAMP_OK;
}
