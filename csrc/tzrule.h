/* tzrule.h: POSIX TZ strings ("CET-1CEST,M3.5.0,M10.5.0/3"), parsed and
 * evaluated by pure code.  Used for TZ values that name no file and for the
 * footer of TZif v2+ files, which covers instants past the table.
 *
 * Accepted: std name (3+ letters or <[A-Za-z0-9+-]{3,}>), std offset
 * [+-]hh[:mm[:ss]] with hh <= 24, then optionally a dst name, an optional
 * dst offset (default: one hour ahead of std); both offsets must come out
 * strictly under 24 h either way and ",start[/time],end[/time]"
 * with dates Jn (1..365), n (0..365) or Mm.w.d and times [+-]h[:mm[:ss]]
 * with |h| <= 167 (the TZif v3 extension: America/Nuuk's M3.5.0/-1,
 * Asia/Jerusalem's M3.4.4/26).  A dst name without rules gets the US rules
 * M3.2.0,M11.1.0 (glibc's fallback when no posixrules file applies).
 *
 * Semantics are POSIX.1-2024's with RFC 8536's extensions, read as glibc
 * and Python's zoneinfo read them: the offset at t is decided by t's own
 * UTC year's two changes alone, wherever their change times (up to
 * +-167 h, and the offsets) carry them.  DST holds from start to end, and
 * in a year whose end comes before its start the year begins and ends in
 * DST (the order can differ from year to year: SXTF1NDUG0,M7.3.4,J199);
 * equal instants are no DST.  So the state can change at 00:00 UTC of
 * 1 January, and a change pushed into another year decides nothing there:
 * EST5EDT,0/0,J365/25, which RFC 8536 means as DST all year, is standard
 * time for the first five hours of each year, as glibc says
 * (docs/offset-engine.md, traps 4 and 10). */
#ifndef MONOSTAMP_TZRULE_H
#define MONOSTAMP_TZRULE_H

#include "config.h"

MONOSTAMP__HIDDEN_BEGIN

typedef struct monostamp__tzrule_date {
    char kind;       /* 'J' (Jn), 'N' (n) or 'M' (Mm.w.d) */
    int16_t n;       /* J: 1..365, N: 0..365, M: month 1..12 */
    int16_t week;    /* M only: 1..5 (5 = last) */
    int16_t wday;    /* M only: 0 (Sunday)..6 */
    int32_t time_s;  /* local time of day of the change, -167 h..167 h */
} monostamp__tzrule_date;

typedef struct monostamp__tzrule {
    int32_t std_offset_s; /* seconds east of UTC (POSIX writes west) */
    int32_t dst_offset_s; /* equal to std_offset_s when there is no DST */
    int has_dst;          /* 1 when the rule has a DST period */
    monostamp__tzrule_date start, end;
} monostamp__tzrule;

/* Parses exactly `len` bytes of `text`.  0 on success, -1 if malformed. */
int monostamp__tzrule_parse(const char *text, size_t len,
                            monostamp__tzrule *out);

/* The offset in force at `t_s` (UTC seconds) and a window [from_s, until_s)
 * around it over which it holds; INT64_MIN / INT64_MAX mean unbounded.
 * The window may be narrower than the real period (the caller just asks
 * again), never wider: no change of offset lies inside it.  |t_s| is meant
 * to be below 2^40 (34,000 years; callers clip); beyond, the answer is the
 * offset at the nearer edge in a one-second window, so nothing overflows. */
void monostamp__tzrule_window(const monostamp__tzrule *rule, int64_t t_s,
                              int32_t *offset_s, int64_t *from_s,
                              int64_t *until_s);

MONOSTAMP__HIDDEN_END

#endif
