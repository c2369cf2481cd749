/* tzif.h: a zone's offsets over all time, read from TZif bytes (RFC 8536,
 * versions 1 to 4) or built from a POSIX TZ rule.  Pure code over bytes:
 * no I/O, so the parser can be fuzzed and tested with vectors. */
#ifndef MONOSTAMP_TZIF_H
#define MONOSTAMP_TZIF_H

#include "config.h"

#include "tzrule.h"

MONOSTAMP__HIDDEN_BEGIN

/* The offset changes of a zone, merged: two neighbouring entries never
 * carry the same offset (changes of only the DST flag or abbreviation, and
 * zic's no-op entries, are dropped).  Immutable once built. */
typedef struct monostamp__tzdata {
    size_t count;              /* entries in times_s / offsets_s */
    const int64_t *times_s;    /* strictly ascending UTC seconds */
    const int32_t *offsets_s;  /* the offset from times_s[i] on */
    int32_t initial_offset_s;  /* before times_s[0]: time type 0 */
    int has_rule;              /* a footer rule governs t >= rule_from_s */
    int64_t rule_from_s;       /* the last transition of the table, or INT64_MIN */
    monostamp__tzrule rule;
} monostamp__tzdata;

/* Parses `len` bytes of a TZif file.  Leap-second records (right/ zones)
 * are taken out of the transition times, so such a file reads as its
 * posix/ twin.  0 and *out (free with monostamp__tzdata_free), or
 * MONOSTAMP_ENOZONE if malformed, MONOSTAMP_ENOMEM. */
int monostamp__tzif_parse(const unsigned char *data, size_t len,
                          monostamp__tzdata **out);

/* A zone governed by `rule` alone.  0, or MONOSTAMP_ENOMEM. */
int monostamp__tzdata_from_rule(const monostamp__tzrule *rule,
                                monostamp__tzdata **out);

void monostamp__tzdata_free(monostamp__tzdata *data);

/* The offset at `t_s` (UTC seconds, |t_s| < 2^40) and a window
 * [from_s, until_s) containing t_s over which it holds (INT64_MIN /
 * INT64_MAX: unbounded).  Pure; thread-safe on shared data. */
void monostamp__tzdata_window(const monostamp__tzdata *data, int64_t t_s,
                              int32_t *offset_s, int64_t *from_s,
                              int64_t *until_s);

/* Where the fold ends for instants in a window [from_s, ...) of offset
 * `offset_s` that monostamp__tzdata_window gave: the change that began the
 * offset's period (from_s, or further back where the window is narrower
 * than the period) plus how far the clocks went back there; INT64_MIN if
 * they went forward or did not change.  An instant t of the window has
 * fold 1 iff t < the result.  Pure; thread-safe on shared data. */
int64_t monostamp__tzdata_fold_until(const monostamp__tzdata *data, int64_t from_s,
                                     int32_t offset_s);

MONOSTAMP__HIDDEN_END

#endif
