/*
 * learned.h: a lateness learned per band of lengths, the recent worst case
 * of what was observed.  The kernel-sleep margin (sleep.c) and the host's
 * lead (sleep_finish.c) are both this: one process-wide table each, whose
 * band b holds lengths below limit_ns[b] (the last band, the rest).
 *
 * An observation x is covered as x + x/4 + headroom: at once when that is
 * higher (at most jump_max times over, so that one preempted wake-up does
 * not set it), and, when it is lower and exact (measured with nothing else
 * widening it), by 1/decay of the gap, rounded up: the value tracks the
 * recent worst case, not the typical one.  A band not observed yet uses
 * the larger of its start and the nearest shorter band's observed value,
 * as a longer length comes back no sooner than a shorter one.
 *
 * Relaxed atomics, no lock, no thread-local state: a lost update between
 * racing threads loses one observation, the values order nothing else, and
 * after fork() a child inherits a good estimate.
 */
#ifndef MONOSTAMP_LEARNED_H
#define MONOSTAMP_LEARNED_H

#include "config.h"

#include <stdatomic.h>

#define MONOSTAMP__LEARNED_BANDS_MAX 8

typedef struct {
    int bands;                /* at most MONOSTAMP__LEARNED_BANDS_MAX */
    const int64_t *limit_ns;  /* bands - 1 ascending upper limits */
    const int64_t *start_ns;  /* each band's value before any observation */
    int64_t min_ns, max_ns;   /* every value is clamped to these */
    int64_t headroom_ns;
    int64_t decay;
    int64_t jump_max;
    _Atomic int64_t *value_ns; /* bands values, the learned state */
    _Atomic int *seen;         /* bands flags: observed at least once */
} monostamp__learned;

MONOSTAMP__HIDDEN_BEGIN

/* The band of a length. */
int monostamp__learned_band(const monostamp__learned *l, int64_t length_ns);
/* Band b's value now (see above for a band not observed yet). */
int64_t monostamp__learned_value(const monostamp__learned *l, int b);
/* Sets band b to `value_ns` (clamped) as if observed. */
void monostamp__learned_set(const monostamp__learned *l, int b, int64_t value_ns);
/* One observed lateness for band b; `exact`: it may also lower the value. */
void monostamp__learned_observe(const monostamp__learned *l, int b, int64_t late_ns, int exact);
/* Every band back to its start, unobserved (tests only). */
void monostamp__learned_reset(const monostamp__learned *l);

MONOSTAMP__HIDDEN_END

#endif
