/* zone.h: the zone object (struct monostamp_zone) and its offset lookup:
 * the hot path inline, for the clock core; the slow path in zone.c.
 *
 * Each zone publishes one window [from_ns, until_ns) and the offset in
 * force over it (and, once asked, where the fold ends in it), under a seqlock: a stamp inside the window costs two loads
 * of `seq`, three relaxed loads and one range compare; readers never write
 * shared memory, so threads stamping at once do not contend.  Anything
 * else (a new window, a DST change, the local zone's once-a-second source
 * re-check, whose deadline is folded into until_ns) goes to the out-of-line
 * monostamp__zone_offset_slow(), which computes and publishes under a lock.
 *
 * Usage (csrc/clock.c):
 *     int32_t off;
 *     int rc = monostamp__zone_offset_fast(clock->zone, stamp_ns, &off);
 */
#ifndef MONOSTAMP_ZONE_H
#define MONOSTAMP_ZONE_H

#include "config.h"

#include <stdatomic.h>

#include "tzif.h"

MONOSTAMP__HIDDEN_BEGIN

struct monostamp_zone {
    /* The published window, alone on its cache line.  `seq` is odd while
     * a writer (holding the engine's lock) changes the three fields. */
    _Alignas(64) _Atomic uint32_t seq;
    _Atomic int32_t offset_s;
    _Atomic int64_t from_ns;  /* inclusive */
    _Atomic int64_t until_ns; /* exclusive; an empty window has from > until */
    /* For the fold (monostamp_zone_fold): the wall times of instants in the
     * window before this one are the second of two.  INT64_MIN: none are;
     * MONOSTAMP__FOLD_UNKNOWN: not worked out for this window yet. */
    _Atomic int64_t fold_until_ns;
    /* Slow-path state.  Named zones: `data` never changes after open.  The
     * local zone: `data` is swapped under the engine's lock. */
    _Alignas(64) int is_local;
    int probing;              /* local zone only: ask localtime_r (no usable data) */
    monostamp__tzdata *data;
    char name[MONOSTAMP_ZONE_NAME_MAX + 1];
};

#define MONOSTAMP__FOLD_UNKNOWN INT64_MAX

/* Computes the offset at utc_ns the long way, publishes the window around
 * it when it can, and returns 0 (or MONOSTAMP_EINVAL for a NULL argument). */
int monostamp__zone_offset_slow(monostamp_zone *zone, int64_t utc_ns,
                                int32_t *out_offset_s);

/* The offset in force at utc_ns: 0 and *out_offset_s.  zone and
 * out_offset_s must not be NULL.  Thread-safe; lock-free when utc_ns lies
 * in the published window. */
static inline int monostamp__zone_offset_fast(monostamp_zone *zone,
                                              int64_t utc_ns,
                                              int32_t *out_offset_s)
{
    /* Seqlock read without fences (TSan cannot model them): the field
     * loads are acquire, so the second load of seq cannot move before
     * them, and a field value from a writer's release store carries that
     * writer's odd seq with it.  On x86 every load here is a plain move. */
    uint32_t s0 = atomic_load_explicit(&zone->seq, memory_order_acquire);
    int64_t from = atomic_load_explicit(&zone->from_ns, memory_order_acquire);
    int64_t until = atomic_load_explicit(&zone->until_ns, memory_order_acquire);
    int32_t off = atomic_load_explicit(&zone->offset_s, memory_order_acquire);
    uint32_t s1 = atomic_load_explicit(&zone->seq, memory_order_relaxed);
    if (MONOSTAMP__LIKELY(s0 == s1 && (s0 & 1u) == 0 && utc_ns >= from &&
                          utc_ns < until)) {
        *out_offset_s = off;
        return 0;
    }
    return monostamp__zone_offset_slow(zone, utc_ns, out_offset_s);
}

MONOSTAMP__HIDDEN_END

#endif
