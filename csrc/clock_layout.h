/*
 * clock_layout.h: what a monostamp_clock's opaque bytes hold.  Only the
 * clock's own files (clock.c, default_clock.c) see it.
 *
 * The public type is storage of MONOSTAMP_CLOCK_SIZE bytes; the checks at
 * the end keep this layout inside it.  The core reaches the layout only
 * through clock_of(), never through the union, so every access to a
 * clock's bytes is made with one type.
 */
#ifndef MONOSTAMP_CLOCK_LAYOUT_H
#define MONOSTAMP_CLOCK_LAYOUT_H

#include "config.h"

#include <stdatomic.h>

#include "state_file.h"
#include "zone.h"

MONOSTAMP__HIDDEN_BEGIN

typedef struct monostamp__clock {
    /* Read-mostly, set at init: cores keep shared copies of this line. */
    /* The state's LAST (state_file.h; its ANCHOR is the next element):
     * own_state, or a state in shared memory.  The pointer is atomic
     * because monostamp_default_share() moves it. */
    _Atomic(_Atomic int64_t *) last_ns;
    _Atomic int policy;
    int source;
    int on_lead;
    int64_t max_lead_ns;
    monostamp_zone *zone;
    /* The state file the clock shares and follows, or NULL (clock_share.c),
     * and the reading from which to look again whether its path still names
     * the file mapped: INT64_MAX for a private clock, so the one compare a
     * stamp makes never calls out. */
    struct monostamp__state_watch *watch;
    _Atomic int64_t recheck_at_ns;
    /* Where the bound every stamp keeps is read: the state's BOUND cell
     * (state_file.h) for a platform source, which holds the clock's own
     * bound and every other promise made on the state; the clock's own
     * state's for a manual source, whose readings are its own.  Moved
     * with last_ns, so a stamp reads one load for its bound. */
    _Atomic(_Atomic int64_t *) bound_at;
    /* Around each nap of a lead wait, or NULL; atomic so that a host can
     * set it while other threads stamp. */
    _Atomic(const monostamp_waiter *) waiter;
    int destroyed;                    /* set by destroy: every call is EINVAL */
    /* 64 bytes keep the groups on different cache lines wherever the
     * caller put the storage (alignment is the caller's). */
    char separate_read_mostly[MONOSTAMP__CACHE_LINE];
    /* Written by every stamp, together, so that the compare-and-swap on
     * own_state brings the counters' line along in the same transfer.
     * Counters are relaxed atomics, updated without locked instructions. */
    _Atomic int64_t own_state[MONOSTAMP__STATE_FILE_CELLS]; /* every state's cells */
    _Atomic uint64_t fresh_readings; /* readings above the last stamp (all, under
                                        acceptPlatformTime); + duplicates = readings */
    _Atomic int64_t manual_ns;     /* the manual source's reading */
    /* The manual source's anchor: the highest reading it was set away from
     * (it does not advance with the monotonic clock, and is the clock's own
     * even on a shared state, whose anchor is the wall clock's). */
    _Atomic int64_t manual_anchor;
    _Atomic int64_t apt_reading;   /* acceptPlatformTime's previous reading */
    /* The last value this clock handed out or joined its state at: a
     * state found below it went backwards (a file overwritten in place,
     * a replacement nobody raised), and is raised before any stamp
     * (clock.c).  Stored with release after each stamp's compare-and-swap
     * and loaded with acquire before the state, so a state is never found
     * below it merely because another thread stamped in between.  With
     * threads racing it may lag the latest stamp; it never leads it.  It
     * is also what each stamp's compare-and-swap expects the state to
     * hold, so that a stamp need not load the state first. */
    _Atomic int64_t seen_ns;
    char separate_per_stamp[MONOSTAMP__CACHE_LINE];
    /* Written on the slow path only. */
    _Atomic int64_t slow_reading;  /* the last reading that took the slow path */
    _Atomic int64_t slow_stamp;    /* and the stamp it got */
    _Atomic uint64_t backward_steps;
    _Atomic int64_t largest_backward_ns;
    _Atomic uint64_t duplicates;
    _Atomic uint64_t holds;        /* duplicates held at last (allowDuplicates) */
    _Atomic int64_t max_lead_seen_ns; /* of the slow runs before the latest */
    _Atomic uint64_t lead_waits;
    _Atomic uint64_t lead_errors;
    /* How much of stamps (readings), duplicates and backward_steps the
     * clock has added to a state file's counts already (clock_counts.c):
     * each count is published once, into whichever file. */
    _Atomic uint64_t published_stamps;
    _Atomic uint64_t published_repeats;
    _Atomic uint64_t published_backward;
    /* The highest anchor the clock's state had at its checkpoints: kept
     * here too, so that a state file whose bytes were lost (truncated,
     * overwritten) still gives the reference a raise counts from. */
    _Atomic int64_t anchor_seen;
} monostamp__clock;

_Static_assert(sizeof(monostamp__clock) <= sizeof(monostamp_clock),
               "the clock's layout must fit MONOSTAMP_CLOCK_SIZE");
_Static_assert(_Alignof(monostamp__clock) <= _Alignof(monostamp_clock),
               "the clock's storage must be aligned for its layout");
/* Processes share the "last" atomic only if it is lock-free, hence
 * address-free. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

/* A clock in static storage, usable before any code has run: a private
 * state with no stamp yet, no zone (no offsets: monostamp_draw without
 * MONOSTAMP_DRAW_OFFSET only) and a platform source, whose first stamp
 * takes a checkpoint (recheck at INT64_MIN) and so samples its anchor.
 * What monostamp_clock_init sets, less what needs a call: for the preload,
 * whose clock_gettime another library's constructor may call before the
 * preload's own constructor has run.  `self` names the object itself. */
#define MONOSTAMP__CLOCK_STATIC(self, policy_, source_, max_lead_ns_)                     \
    {                                                                                      \
        .last_ns = &(self).own_state[MONOSTAMP__STATE_LAST], .policy = (policy_),         \
        .source = (source_), .on_lead = MONOSTAMP_ON_LEAD_WAIT,                            \
        .max_lead_ns = (max_lead_ns_), .recheck_at_ns = INT64_MIN,                         \
        .bound_at = &(self).own_state[MONOSTAMP__STATE_BOUND],                             \
        .own_state = {[MONOSTAMP__STATE_LAST] = INT64_MIN,                                 \
                      [MONOSTAMP__STATE_BOUND] = (max_lead_ns_)},                          \
        .manual_anchor = INT64_MIN,                                                        \
        .apt_reading = INT64_MIN, .seen_ns = INT64_MIN, .slow_stamp = INT64_MIN           \
    }

static inline monostamp__clock *clock_of(monostamp_clock *clock)
{
    return (monostamp__clock *)(void *)clock;
}

static inline const monostamp__clock *const_clock_of(const monostamp_clock *clock)
{
    return (const monostamp__clock *)(const void *)clock;
}

/* a - b for a >= b, saturated at INT64_MAX (a reading far below 1970):
 * a lead, or a step back. */
static inline int64_t clock_distance(int64_t a, int64_t b)
{
    return (b < 0 && a > INT64_MAX + b) ? INT64_MAX : a - b;
}

MONOSTAMP__HIDDEN_END

#endif
