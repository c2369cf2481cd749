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
enum { MONOSTAMP__STATE_LAST = 0, MONOSTAMP__STATE_ANCHOR = 1 };

/* A state file holds two more cells on the same line, written once, by the
 * clock that retires the file (clock_share.c): the device and inode of the
 * file it moved the sequence to, raised above this one's final value.  A
 * process that finds the state retired and the place naming that very
 * file knows it was raised; any other file it raises itself.  Zero (no
 * successor named) in a file that is not retired, or was retired by an
 * older library.
 *
 * Then two cells every state has (a clock's own too, so that no path asks
 * where its state lives):
 *   - BOUND, the state's one lead bound: the tightest bound in ns that any
 *     reader of it promised (a clock's max_lead_ns, a draw's bound such as
 *     the patch's 5 ms), only ever lowered; 0 while none promised one.
 *     Every clock on the state draws under it as well as under its own, so
 *     that no reader makes another wait longer than that one's bound, or
 *     run further ahead (docs/clock-core.md);
 *   - JOINS, how many times a clock joined the state (monostamp run asks
 *     whether anything joined its file).
 * Bytes that version 1 of the layout kept zero, so an older library's
 * file reads "no bound, no join" and the version stays 1. */
enum {
    MONOSTAMP__STATE_NEXT_DEV = 2,
    MONOSTAMP__STATE_NEXT_INO = 3,
    MONOSTAMP__STATE_BOUND = 4,
    MONOSTAMP__STATE_JOINS = 5,
    MONOSTAMP__STATE_FILE_CELLS = 6
};

/* A state file's header (state_file.c) holds, away from the state's line,
 * what the clocks of every process on the file counted, each clock adding
 * what it had not published yet (clock_counts.c) at its rare checkpoints,
 * when it leaves the file and at exit; never on a stamp's path:
 *   - STAMPS, the stamps handed out;
 *   - REPEATS, those made from a reading (at the caller's grain) not above
 *     the last stamp, which would have repeated without monostamp;
 *   - BACKWARD, readings below the clock's previous one;
 *   - LEAD, the largest lead of a stamp over its reading, only raised, by
 *     clocks of a real-clock source (a manual clock's reading is a test's).
 * Bytes that version 1 kept zero ("nothing counted"), so an older library
 * reads and writes the file as before.  Numbers any process on the file
 * can write: a reader takes them as untrusted (sums wrap, never trap). */
enum {
    MONOSTAMP__COUNT_STAMPS = 0,
    MONOSTAMP__COUNT_REPEATS = 1,
    MONOSTAMP__COUNT_BACKWARD = 2,
    MONOSTAMP__COUNT_LEAD = 3,
    MONOSTAMP__COUNT_CELLS = 4
};

/* The count cells of a state file mapped at `mapping` (a state file's, or
 * an anonymous page's: state_file.c). */
_Atomic uint64_t *monostamp__state_counts(void *mapping);

/* Lowers the state's BOUND (the cell after `last` by MONOSTAMP__STATE_BOUND)
 * to `bound_ns` if that is tighter, or if it has none yet.  0 promises
 * nothing and changes nothing. */
static inline void monostamp__state_promise(_Atomic int64_t *last, int64_t bound_ns)
{
    _Atomic int64_t *cell = last + MONOSTAMP__STATE_BOUND;
    int64_t seen = atomic_load_explicit(cell, memory_order_relaxed);
    while (bound_ns > 0 && (seen == 0 || seen > bound_ns) &&
           !atomic_compare_exchange_weak_explicit(cell, &seen, bound_ns, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}

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
 * MONOSTAMP_EFOREIGN for one that is not monostamp's or is truncated
 * (unless it is `repair`, a file this process had mapped, which is then
 * written anew as a new file would start: os.h, monostamp__os_map_place),
 * MONOSTAMP_EVERSION for another layout, an EOS code for the OS's
 * refusals. */
int monostamp__state_file_open(const monostamp__os_place *place, int trust_group,
                               int64_t start_lead_ns, const monostamp__os_file_id *repair,
                               _Atomic int64_t **last_ns, void **mapping, size_t *mapping_size,
                               monostamp__os_file_id *id);

/* Guards a state file's mapping against truncation (os.h,
 * monostamp__os_guard): a fault finds a page whose state reads RETIRED.
 * Best effort: 0, or the error that left it unguarded. */
int monostamp__state_guard(void *mapping, size_t mapping_size);

/* Records in the retired state file whose LAST is `last` the file the
 * sequence moved to (once, by whoever retired it). */
void monostamp__state_name_successor(_Atomic int64_t *last, const monostamp__os_file_id *next);

/* 1 if the retired state whose LAST is `last` names `file` as the file it
 * moved to (the raise made before the retire is then visible: acquire),
 * else 0. */
int monostamp__state_successor_is(_Atomic int64_t *last, const monostamp__os_file_id *file);

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
