/*
 * state_file.h: where a clock's state lives when other processes must see
 * it: a state file that unrelated processes map, or an anonymous page that
 * fork() children share.
 */
#ifndef MONOSTAMP_STATE_FILE_H
#define MONOSTAMP_STATE_FILE_H

#include "config.h"

#include <stdatomic.h>

#include "os.h"

MONOSTAMP__HIDDEN_BEGIN

/*
 * A clock's state is two atomics side by side on one cache line, an array
 * wherever it lives (a state file, an anonymous page, the clock itself):
 *   - LAST, the last stamp handed out: every stamp compares-and-swaps it;
 *   - ANCHOR, what turns the monotonic clock into the clock's reference of
 *     real time, a reading that never steps back: the highest (source
 *     reading - monotonic reading) seen, so that reference = monotonic +
 *     ANCHOR (clock.c).  Only raised, and rarely written.  0 means none
 *     yet, as in a file of an older library, whose bytes there are zero.
 * A clock holds a pointer to LAST; the anchor is the element after it.
 */
enum { MONOSTAMP__STATE_LAST = 0, MONOSTAMP__STATE_ANCHOR = 1, MONOSTAMP__STATE_CELLS = 2 };

/* How a state file a clock creates starts: `start_lead_ns` above the wall
 * clock, clear of every stamp a departed process handed out within that
 * lead; or, with MONOSTAMP__STATE_FRESH, at "no stamp yet", for a file in
 * a directory its creator made itself, which no earlier sequence used. */
#define MONOSTAMP__STATE_FRESH INT64_C(-1)

/* The anchor of a reading of platform source `source` taken just now: the
 * reading minus its monotonic twin (monostamp__os_monotonic_of), read
 * after it, so that the anchor errs low (a reference a hair behind real
 * time can only tighten a lead bound).  Wall minus monotonic is the same
 * for the precise and the coarse pair, so clocks of both kinds share one
 * anchor.  Saturated for readings far before 1970. */
static inline int64_t monostamp__state_anchor_of(int source, int64_t reading)
{
    int64_t monotonic = monostamp__os_monotonic_of(source);
    return reading < INT64_MIN + monotonic ? INT64_MIN : reading - monotonic;
}

/* Raises an atomic to at least `floor` (the anchor, or LAST when a state
 * is joined from another). */
static inline void monostamp__state_raise(_Atomic int64_t *cell, int64_t floor)
{
    int64_t seen = atomic_load_explicit(cell, memory_order_relaxed);
    while (seen < floor && !atomic_compare_exchange_weak_explicit(cell, &seen, floor,
                                                                  memory_order_relaxed,
                                                                  memory_order_relaxed))
        ;
}

/* Opens the state file at `place`, creating it (mode 0600, 0660 with
 * `trust_group`) if absent, and maps it; *last_ns then points at the
 * shared state's LAST and *id names the file mapped.  A file it creates
 * starts `start_lead_ns` (the creating clock's lead bound) above the wall
 * clock, not at "no stamp yet": every stamp a process handed out within
 * that bound, on a deleted file of the same name or on this one's
 * predecessor, stays below the new one's first.  With
 * MONOSTAMP__STATE_FRESH it starts at "no stamp yet".  Either way its
 * anchor starts at the wall clock's.
 * MONOSTAMP_EUNSAFE for a file another user could write,
 * MONOSTAMP_EFOREIGN for one that is not monostamp's or is truncated,
 * MONOSTAMP_EVERSION for another layout, an EOS code for the OS's
 * refusals. */
int monostamp__state_file_open(const monostamp__os_place *place, int trust_group,
                               int64_t start_lead_ns, _Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size, monostamp__os_file_id *id);

/* What a state file's atomic holds once a clock found that its path names
 * another file and moved the sequence there (clock_share.c): no stamp can
 * follow it, and whoever reads it rejoins through the path. */
#define MONOSTAMP__STATE_RETIRED INT64_MAX

/* A state in anonymous memory that fork() shares, holding "no stamp yet"
 * and no anchor. */
int monostamp__state_anonymous(_Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size);

/* Unmaps a state from either function above. */
void monostamp__state_close(void *mapping, size_t mapping_size);

MONOSTAMP__HIDDEN_END

#endif
