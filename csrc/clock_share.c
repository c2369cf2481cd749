/*
 * clock_share.c: a clock's state on a state file, and following the file.
 *
 * A clock shares its sequence through one atomic in a mapped file.  Three
 * things can split that sequence, and each is closed here:
 *
 *   - chdir(): a relative path would name another file from another
 *     working directory.  The file's directory is pinned when the clock
 *     opens it (monostamp__os_place: a directory descriptor), and every
 *     later look and rejoin goes through it.
 *   - Deletion, or a new file renamed over the old: processes that have
 *     the old file mapped keep its inode, while newcomers open the new one.
 *     Every shared clock looks, every few ms of its own readings, whether
 *     its place still names the file it mapped (one fstatat, device and
 *     inode).  When it does not, it maps what the place names now
 *     (creating it if gone), raises that file above the old state's value
 *     and, in the same compare-and-swap loop, writes RETIRED into the old
 *     atomic.  From then on no stamp can land on the old state: every stamp
 *     reads that atomic anyway, and one that reads RETIRED rejoins through
 *     the place before it hands anything out.  So the old sequence's final
 *     value is below everything the new file hands out, in every process,
 *     whoever noticed first.
 *   - A newcomer after a deletion, with nobody left to notice: a new file
 *     starts above the wall clock by its creator's lead bound
 *     (state_file.c), above every stamp handed out within that bound.
 *
 * docs/clock-core.md says what remains.  Retired mappings stay mapped
 * until the clock is destroyed, since a thread may still hold a pointer
 * into one.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "clock_share.h"
#include "os.h"
#include "state_file.h"

#define RELAXED memory_order_relaxed

/* A mapping the clock has moved away from, kept until destroy. */
struct retired {
    void *mapping;
    size_t size;
    struct retired *next;
};

struct monostamp__state_watch {
    monostamp__os_place *place;   /* the file's directory, pinned, and its name */
    int trust_group;
    void *mapping;                /* the file the clock is on now */
    size_t mapping_size;
    monostamp__os_file_id id;     /* and its identity */
    struct retired *retired;
    /* One move or look at a time: the id of the process whose thread holds
     * it, or 0.  A process id rather than a flag, so that a fork() child,
     * whose copy may say "held" by a thread that does not exist there,
     * knows it can take it (its id is never the parent's). */
    _Atomic int64_t holder;
};

static void raise_cell(_Atomic int64_t *cell, int64_t floor)
{
    monostamp__state_raise(cell, floor);
}

/* A state joined from `old` keeps its reference of real time and its
 * promises: the anchor only rises, the bound only tightens, so the new
 * state's are at least the old one's.  A manual clock's own state holds a
 * bound on its own readings, not on real time: it carries none. */
static void carry_state(const monostamp__clock *clock, _Atomic int64_t *cell,
                        _Atomic int64_t *old)
{
    raise_cell(cell + MONOSTAMP__STATE_ANCHOR,
               atomic_load_explicit(old + MONOSTAMP__STATE_ANCHOR, RELAXED));
    if (clock->source != MONOSTAMP_SOURCE_MANUAL)
        monostamp__state_promise(cell,
                                 atomic_load_explicit(old + MONOSTAMP__STATE_BOUND, RELAXED));
}

/* What a clock promises every reader of a state it joins: its own bound
 * (a manual clock's readings are its own, so it promises nothing). */
static void promise_own(const monostamp__clock *clock, _Atomic int64_t *cell)
{
    if (clock->source != MONOSTAMP_SOURCE_MANUAL)
        monostamp__state_promise(cell, clock->max_lead_ns);
}

/* Makes `cell` the clock's state: where a stamp reads its bound first
 * (a platform clock keeps the state's), then the state itself (release:
 * the raises made before are seen by whoever stamps there). */
static void move_onto(monostamp__clock *clock, _Atomic int64_t *cell)
{
    if (clock->source != MONOSTAMP_SOURCE_MANUAL)
        atomic_store_explicit(&clock->bound_at, cell + MONOSTAMP__STATE_BOUND, RELAXED);
    atomic_store_explicit(&clock->last_ns, cell, memory_order_release);
}

/* A mapping the clock retires, kept until destroy.  Inside the preload,
 * whose rare path may run in a signal handler, the node is a page of its
 * own (mmap is a system call; malloc may hold a lock the interrupted
 * thread holds). */
static struct retired *new_retired(void)
{
#if defined(MONOSTAMP_PRELOAD_BUILD)
    void *page;
    return monostamp__os_map_anonymous(sizeof(struct retired), &page) == MONOSTAMP_OK ? page
                                                                                      : NULL;
#else
    return malloc(sizeof(struct retired));
#endif
}

static void free_retired(struct retired *r)
{
#if defined(MONOSTAMP_PRELOAD_BUILD)
    if (r != NULL)
        monostamp__os_unmap(r, sizeof *r);
#else
    free(r);
#endif
}

/* Guards a mapping against truncation, except in the preload, which
 * installs no signal handler in programs it does not own. */
static void guard(void *mapping, size_t size)
{
#if defined(MONOSTAMP_PRELOAD_BUILD)
    (void)mapping;
    (void)size;
#else
    /* Best effort: unguarded, a truncation kills as it always did. */
    (void)monostamp__state_guard(mapping, size);
#endif
}

static int64_t next_check(int64_t reading)
{
    return monostamp__clock_next_checkpoint(reading);
}

int64_t monostamp__clock_next_checkpoint(int64_t reading)
{
    return reading > INT64_MAX - MONOSTAMP__STATE_RECHECK_NS
               ? INT64_MAX - 1
               : reading + MONOSTAMP__STATE_RECHECK_NS;
}

/* Takes the watch if free, or if held by another process (the parent this
 * one was forked from, at the fork): 1 if taken, 0 if a thread of this
 * process holds it. */
static int try_lock_watch(struct monostamp__state_watch *watch, int64_t me)
{
    int64_t seen = 0;
    for (;;) {
        if (atomic_compare_exchange_strong_explicit(&watch->holder, &seen, me,
                                                    memory_order_acquire, memory_order_relaxed))
            return 1;
        if (seen == me)
            return 0;
        /* 0 again, or another process's stale hold: try to take that. */
    }
}

/* Takes the watch for a move that must happen (a yield between tries: its
 * holder only does a few file calls).  Every holder holds it with the
 * thread's signals blocked (`held`), so a signal handler that stamps (the
 * preload's clock_gettime) never waits here for the thread it interrupted;
 * a holder on another thread makes progress meanwhile. */
static void lock_watch(struct monostamp__state_watch *watch, monostamp__os_signals *held)
{
    int64_t me = monostamp__os_process_id();
    monostamp__os_signals_hold(held);
    while (!try_lock_watch(watch, me)) {
        monostamp__os_signals_release(held);
        monostamp__os_yield();
        monostamp__os_signals_hold(held);
    }
}

static void unlock_watch(struct monostamp__state_watch *watch, const monostamp__os_signals *held)
{
    atomic_store_explicit(&watch->holder, 0, memory_order_release);
    monostamp__os_signals_release(held);
}

/* How far above the wall clock a file this clock creates starts: its own
 * lead bound (so that its first stamps stay within it), or the default
 * bound for a clock without one. */
static int64_t start_lead(const monostamp__clock *clock)
{
    return clock->max_lead_ns != 0 ? clock->max_lead_ns : MONOSTAMP_DEFAULT_MAX_LEAD_NS;
}

/* a + b for b >= 0, saturated. */
static int64_t add_saturated(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Above every stamp any process could have handed out on the sequence
 * `cell` holds (its own value aside): the reference of real time (the
 * state's anchor or the clock's own, whichever is higher, plus the
 * monotonic clock; never below the reading) plus the lead bound, and
 * above what this clock handed out.  A departed or concurrent process
 * with a larger bound than this clock's is covered up to this one's
 * (docs/clock-core.md). */
static int64_t ceiling(monostamp__clock *clock, _Atomic int64_t *cell)
{
    int64_t ref, reading;
    if (clock->source == MONOSTAMP_SOURCE_MANUAL) {
        ref = atomic_load_explicit(&clock->manual_anchor, RELAXED);
        reading = atomic_load_explicit(&clock->manual_ns, RELAXED);
    } else {
        int64_t anchor = atomic_load_explicit(cell + MONOSTAMP__STATE_ANCHOR, RELAXED);
        int64_t own = atomic_load_explicit(&clock->anchor_seen, RELAXED);
        if (own > anchor)
            anchor = own;
        int64_t monotonic = monostamp__os_monotonic_of(clock->source);
        ref = add_saturated(anchor, monotonic > 0 ? monotonic : 0);
        if (monostamp__os_clock_read(clock->source, &reading) != MONOSTAMP_OK)
            reading = INT64_MIN;
    }
    if (reading > ref)
        ref = reading;
    int64_t top = add_saturated(ref, start_lead(clock));
    int64_t seen = atomic_load_explicit(&clock->seen_ns, memory_order_acquire);
    return seen > top ? seen : top;
}

/*
 * Waits until every process still on a file that this clock's place named
 * before has looked at the place once, for a clock about to raise a file
 * to the ceiling or to start on a file that leads the wall clock.  Such a
 * process stamps, until its next look, from readings less than one recheck
 * interval after the file it is on stopped being the place's; after that
 * interval the ceiling is above all of them, and a process that is still
 * stamping has moved here and raised this file above its own state.  Not
 * for a manual clock, whose readings are its own.
 */
static void settle(const monostamp__clock *clock, int64_t since_ns)
{
    if (clock->source == MONOSTAMP_SOURCE_MANUAL)
        return;
    int64_t left = MONOSTAMP__STATE_RECHECK_NS - (monostamp__os_monotonic_ns() - since_ns);
    if (left > 0)
        monostamp__os_nap_ns(left);
}

/* Whether the clock has stamped nothing since it joined a state with no
 * stamp yet: a platform clock's seen_ns is then the state's anchor at the
 * join (monostamp__clock_share), which every later anchor is at or above,
 * and a clock that stamped has seen a reading, above the anchor of its
 * time. */
static int unstamped(monostamp__clock *clock, _Atomic int64_t *cell)
{
    return clock->source != MONOSTAMP_SOURCE_MANUAL &&
           atomic_load_explicit(&clock->seen_ns, memory_order_acquire) <=
               atomic_load_explicit(cell + MONOSTAMP__STATE_ANCHOR, RELAXED);
}

/* A state whose values were lost: raised above every stamp any process
 * could have handed out. */
static void raise_above_all(monostamp__clock *clock, _Atomic int64_t *cell)
{
    /* The anchor too may have been lost with the value. */
    raise_cell(cell + MONOSTAMP__STATE_ANCHOR, atomic_load_explicit(&clock->anchor_seen, RELAXED));
    raise_cell(cell, ceiling(clock, cell));
}

int monostamp__clock_recover(monostamp__clock *clock, _Atomic int64_t *cell)
{
    /* "No stamp yet" found by a clock that joined it so and has stamped
     * nothing since: no state gone backwards, only the anchor this clock
     * keeps in place of a stamp.  The state takes that anchor, below every
     * reading, so that this clock's next try stamps its reading as on any
     * fresh state; a value that replaced it meanwhile is judged as usual. */
    if (unstamped(clock, cell)) {
        int64_t found = INT64_MIN;
        int64_t anchor = atomic_load_explicit(cell + MONOSTAMP__STATE_ANCHOR, RELAXED);
        if (atomic_compare_exchange_strong_explicit(cell, &found, anchor, RELAXED, RELAXED) ||
            found >= atomic_load_explicit(&clock->seen_ns, memory_order_acquire))
            return MONOSTAMP_OK;
    }
    raise_above_all(clock, cell);
    return MONOSTAMP_OK;
}

/* Keeps the mapping the clock leaves; `spare` is a node allocated before
 * anything changed, so that this cannot fail. */
static void keep_retired(struct monostamp__state_watch *watch, struct retired *spare)
{
    spare->mapping = watch->mapping;
    spare->size = watch->mapping_size;
    spare->next = watch->retired;
    watch->retired = spare;
}

int monostamp__clock_share(monostamp__clock *clock, const char *path, int trust_group)
{
    struct monostamp__state_watch *watch = clock->watch;
    struct retired *retired = NULL;
    monostamp__os_place *place;
    monostamp__os_signals held;
    _Atomic int64_t *cell, *old;
    void *mapping;
    size_t size;
    monostamp__os_file_id id;
    int rc;

    if (path == NULL || path[0] == '\0')
        return MONOSTAMP_EINVAL;
    if (watch == NULL) {
        if ((watch = calloc(1, sizeof *watch)) == NULL)
            return MONOSTAMP_ENOMEM;
        atomic_init(&watch->holder, 0);
    } else if ((retired = new_retired()) == NULL) {
        return MONOSTAMP_ENOMEM;
    }
    /* When the open began, by the monotonic clock (for settle()) and by the
     * clock's own (for a file that leads it): a file this call makes
     * starts above that reading however long the open takes. */
    int64_t opened_at = monostamp__os_monotonic_ns();
    int64_t before = 0;
    int readable = clock->source != MONOSTAMP_SOURCE_MANUAL &&
                   monostamp__os_clock_read(clock->source, &before) == MONOSTAMP_OK;
    /* The directory is resolved here, once: relative to the working
     * directory of this call, never of a later one. */
    int pristine = 0;
    rc = monostamp__os_place_pin(path, &place);
    if (rc == MONOSTAMP_OK) {
        /* A file made as the first entry of a directory no state file can
         * have lived in starts at "no stamp yet", at the real clock: no
         * earlier sequence in it has stamps to stay above
         * (docs/clock-core.md).  Anywhere else, its creator's bound ahead. */
        pristine = monostamp__os_place_pristine(place);
        int64_t start = pristine ? MONOSTAMP__STATE_FRESH : start_lead(clock);
        rc = monostamp__state_file_open(place, trust_group, start, NULL, &cell, &mapping, &size,
                                        &id);
        if (rc != MONOSTAMP_OK)
            monostamp__os_place_free(place);
    }
    if (rc != MONOSTAMP_OK) {
        if (clock->watch == NULL)
            free(watch);
        free_retired(retired);
        return rc;
    }
    guard(mapping, size);
    /* Counted once the file is mapped, whether or not a stamp follows. */
    atomic_fetch_add_explicit(cell + MONOSTAMP__STATE_JOINS, 1, RELAXED);
    if (clock->watch != NULL) {
        lock_watch(watch, &held);
        /* What it counted on the file it leaves goes there. */
        monostamp__clock_publish(clock, monostamp__state_counts(watch->mapping));
    } else {
        monostamp__clock_forget_counts(clock);
    }
    /* A move the caller asked for (monostamp_default_share): the state left
     * behind stays valid for whoever else is on it (a fork child on the
     * default page), so it is not retired, only joined from. */
    /* Every file a clock makes carries an anchor; one without (written by
     * hand, or zeroed) says nothing of the stamps handed out before it, so
     * it is met as a replacement: raised above all of them first.  So is a
     * value below the anchor (0 written over it, say): a stamp read from
     * the wall clock is never below the anchor of its time, so no clock
     * handed it out since.  Not by a manual clock, whose readings are
     * its own. */
    int64_t found = atomic_load_explicit(cell, RELAXED);
    int64_t found_anchor = atomic_load_explicit(cell + MONOSTAMP__STATE_ANCHOR, RELAXED);
    int unanchored = found_anchor == 0 ||
                     (clock->source != MONOSTAMP_SOURCE_MANUAL && found != INT64_MIN &&
                      found < found_anchor);
    /* A newcomer on a file that leads the wall clock: made within its
     * creator's bound, perhaps just now in place of one that processes
     * still stamp on, leading by up to their bound.  After settle() it
     * keeps the file's lead, up to the ceiling: the value it found, raised
     * by the time since it began (at least one look, and the µs the start
     * was rounded down by), is above every stamp they made before they
     * looked if their bound is at most the creator's; the ceiling, if it
     * is at most this clock's.  No higher: processes on the file with a
     * tighter bound than this clock's would wait for a ceiling, and a file
     * pushed further ahead (a manual clock's) needs no raise. */
    int young = clock->watch == NULL && readable && found != INT64_MIN && found > before;
    /* A directory just made may stand where another was renamed away,
     * whose processes move here at their next look and raise the file
     * above their own state: a file started at the real clock is stamped
     * from once they have. */
    if (unanchored || young || pristine)
        settle(clock, opened_at);
    old = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
    carry_state(clock, cell, old);
    promise_own(clock, cell);
    raise_cell(cell, atomic_load_explicit(old, RELAXED));
    if (unanchored)
        raise_above_all(clock, cell);
    else if (young) {
        int64_t kept = add_saturated(found, monostamp__os_monotonic_ns() - opened_at + 2000);
        int64_t top = ceiling(clock, cell);
        raise_cell(cell, kept < top ? kept : top);
    }
    move_onto(clock, cell);
    /* Stamps that were under way on the old state are counted in too. */
    raise_cell(cell, atomic_load_explicit(old, RELAXED));
    /* What the clock joined at is what it has seen: a state found below it
     * later went backwards. */
    monostamp__state_raise(&clock->seen_ns, atomic_load_explicit(cell, RELAXED));
    /* And, on a platform source, the state's anchor: no stamp read from the
     * wall clock is below it.  Without it a clock that joins a state with
     * no stamp yet (a fresh file) has seen nothing until its first stamp,
     * and would take 0 written over the value in place, while another
     * clock on the file draws ahead, for a state to stamp on: its first
     * stamps, the reading's, would repeat what that clock handed out.
     * monostamp__clock_recover() tells "no stamp yet" from a state gone
     * backwards for such a clock. */
    if (clock->source != MONOSTAMP_SOURCE_MANUAL)
        monostamp__state_raise(&clock->seen_ns,
                               atomic_load_explicit(cell + MONOSTAMP__STATE_ANCHOR, RELAXED));

    if (retired != NULL) {
        keep_retired(watch, retired);
        monostamp__os_place_free(watch->place);
    }
    watch->place = place;
    watch->trust_group = trust_group;
    watch->mapping = mapping;
    watch->mapping_size = size;
    watch->id = id;
    if (clock->watch == NULL) {
        /* Look again a few ms of the clock's own readings from now. */
        int64_t reading = 0;
        if (clock->source == MONOSTAMP_SOURCE_MANUAL)
            reading = atomic_load_explicit(&clock->manual_ns, RELAXED);
        else if (monostamp__os_clock_read(clock->source, &reading) != MONOSTAMP_OK)
            reading = INT64_MAX - 1; /* an unreadable source stamps nothing anyway */
        clock->watch = watch;
        atomic_store_explicit(&clock->recheck_at_ns, next_check(reading), RELAXED);
    } else {
        unlock_watch(watch, &held);
    }
    return MONOSTAMP_OK;
}

void monostamp__clock_adopt(monostamp__clock *clock, _Atomic int64_t *cell)
{
    _Atomic int64_t *old = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
    carry_state(clock, cell, old);
    promise_own(clock, cell);
    raise_cell(cell, atomic_load_explicit(old, RELAXED));
    move_onto(clock, cell);
    /* Stamps that were under way on the old state are counted in too. */
    raise_cell(cell, atomic_load_explicit(old, RELAXED));
    monostamp__state_raise(&clock->seen_ns, atomic_load_explicit(cell, RELAXED));
}

static int same_file(const monostamp__os_file_id *a, const monostamp__os_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

/*
 * Moves the clock onto what its place names now, retiring the state it is
 * on (the watch held).  The directory is looked up again first: one
 * renamed away and replaced, or swapped for a symbolic link, is followed
 * to what the path leads to now.  MONOSTAMP_ERANGE if the place still
 * names the state's own file, intact: then the state itself holds
 * RETIRED's value (a manual clock run to INT64_MAX, or a retired file
 * renamed back), and no stamp can follow it.
 *
 * Whoever moves raises the file it moves onto above every value of the
 * state it leaves:
 *   - a state it retires itself: above its final value, in the loop that
 *     retires it, and names the new file in it as the successor;
 *   - a state it finds retired, by another process or by the fault
 *     handler (its file truncated, os_posix_guard.c): if that state names
 *     the new file as its successor, the new file was raised by whoever
 *     retired it; otherwise (a second file renamed over the path before
 *     this clock looked, a truncated file repaired) the values are lost,
 *     and the new file is raised above every stamp any process could have
 *     handed out (ceiling());
 *   - a state gone backwards before it was retired: the same.
 */
static int follow(monostamp__clock *clock)
{
    struct monostamp__state_watch *watch = clock->watch;
    _Atomic int64_t *cell, *old;
    void *mapping;
    size_t size;
    monostamp__os_file_id id;
    int64_t moved_at = monostamp__os_monotonic_ns();
    struct retired *retired = new_retired();
    if (retired == NULL)
        return MONOSTAMP_ENOMEM;
    (void)monostamp__os_place_refresh(watch->place);
    /* A mapping the fault handler replaced: its file was truncated, and if
     * the place still names that file, it is written anew (repaired). */
    int truncated = monostamp__os_guard_tripped(watch->mapping);
    int rc = monostamp__state_file_open(watch->place, watch->trust_group, start_lead(clock),
                                        truncated ? &watch->id : NULL, &cell, &mapping, &size,
                                        &id);
    if (rc != MONOSTAMP_OK) {
        free_retired(retired);
        return rc;
    }
    if (same_file(&id, &watch->id) && !truncated) {
        monostamp__state_close(mapping, size);
        free_retired(retired);
        return MONOSTAMP_ERANGE;
    }
    guard(mapping, size);
    atomic_fetch_add_explicit(cell + MONOSTAMP__STATE_JOINS, 1, RELAXED);
    old = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
    carry_state(clock, cell, old);
    promise_own(clock, cell);
    raise_cell(cell + MONOSTAMP__STATE_ANCHOR, atomic_load_explicit(&clock->anchor_seen, RELAXED));
    /* Raise the new state to the old one's value, then retire the old one
     * if that value is still its last: the retire's release (paired with
     * the acquire load a rejoining process makes here) carries the raise
     * along, so whoever sees RETIRED finds the new file raised already. */
    int64_t final = atomic_load_explicit(old, memory_order_acquire);
    int retired_here = 0;
    while (final != MONOSTAMP__STATE_RETIRED) {
        raise_cell(cell, final);
        if (atomic_compare_exchange_weak_explicit(old, &final, MONOSTAMP__STATE_RETIRED,
                                                  memory_order_acq_rel, memory_order_acquire)) {
            retired_here = 1;
            break;
        }
    }
    int64_t seen = atomic_load_explicit(&clock->seen_ns, memory_order_acquire);
    /* A state still at "no stamp yet" that this clock joined so, and has
     * not stamped on since, went nowhere. */
    int intact = final >= seen || (final == INT64_MIN && unstamped(clock, old));
    if (retired_here && !truncated && intact) {
        monostamp__state_name_successor(old, &id);
    } else if (!retired_here && !truncated && monostamp__state_successor_is(old, &id)) {
        ; /* raised by whoever retired it */
    } else {
        /* Processes may still be on a file this one never reached (the
         * first of two rename-overs): the ceiling once they have looked. */
        settle(clock, moved_at);
        raise_cell(cell, ceiling(clock, cell));
    }
    move_onto(clock, cell);
    keep_retired(watch, retired);
    watch->mapping = mapping;
    watch->mapping_size = size;
    watch->id = id;
    return MONOSTAMP_OK;
}

static int checkpoint(monostamp__clock *clock, int64_t reading);

int monostamp__clock_checkpoint(monostamp__clock *clock, int64_t reading)
{
    int saved = errno; /* its file calls leave it as found (config.h) */
    int rc = checkpoint(clock, reading);
    errno = saved;
    return rc;
}

static int checkpoint(monostamp__clock *clock, int64_t reading)
{
    struct monostamp__state_watch *watch = clock->watch;
    monostamp__os_file_id now;

    if (clock->destroyed)
        return MONOSTAMP_EINVAL;
    if (clock->source != MONOSTAMP_SOURCE_MANUAL) {
        _Atomic int64_t *cell = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
        int64_t anchor = monostamp__state_anchor_of(clock->source, reading);
        int64_t own = atomic_load_explicit(&clock->anchor_seen, RELAXED);
        /* The state's anchor, kept here too (it may be lost with a
         * truncated or overwritten file), and given back if it was. */
        raise_cell(cell + MONOSTAMP__STATE_ANCHOR, anchor > own ? anchor : own);
        raise_cell(&clock->anchor_seen,
                   atomic_load_explicit(cell + MONOSTAMP__STATE_ANCHOR, RELAXED));
    }
    if (watch == NULL) {
        atomic_store_explicit(&clock->recheck_at_ns, next_check(reading), RELAXED);
        return MONOSTAMP_OK;
    }
    monostamp__os_signals held;
    monostamp__os_signals_hold(&held);
    if (!try_lock_watch(watch, monostamp__os_process_id())) {
        monostamp__os_signals_release(&held);
        return MONOSTAMP_OK;
    }
    atomic_store_explicit(&clock->recheck_at_ns, next_check(reading), RELAXED);
    /* The rare path: what the clock counted since its last checkpoint
     * goes into the file's counts (clock_counts.c). */
    monostamp__clock_publish(clock, monostamp__state_counts(watch->mapping));
    /* The path as opened, through whatever directory it leads to now. */
    int moved = monostamp__os_place_id(watch->place, &now) != MONOSTAMP_OK ||
                !same_file(&now, &watch->id);
    /* It leads nowhere, or elsewhere, only because a directory above was
     * renamed, and no other directory took its name: the pinned directory
     * still holds the file, and the clock stays on it. */
    if (moved && !monostamp__os_place_moved(watch->place) &&
        monostamp__os_place_pinned_id(watch->place, &now) == MONOSTAMP_OK &&
        same_file(&now, &watch->id))
        moved = 0;
    if (moved) {
        /* Deleted or replaced: join what the place names now.  If that
         * fails (a file another user planted, say), the clock stays on
         * the state it has, and looks again at the next check. */
        (void)follow(clock);
    }
    unlock_watch(watch, &held);
    return MONOSTAMP_OK;
}

int monostamp__clock_rejoin(monostamp__clock *clock, _Atomic int64_t *seen)
{
    struct monostamp__state_watch *watch = clock->watch;
    monostamp__os_signals held;
    int rc = MONOSTAMP_OK;
    if (watch == NULL)
        return MONOSTAMP_ERANGE; /* not shared: its state is simply at its end */
    lock_watch(watch, &held);
    /* Another thread of this clock may have moved it meanwhile. */
    if (atomic_load_explicit(&clock->last_ns, memory_order_acquire) == seen)
        rc = follow(clock);
    unlock_watch(watch, &held);
    return rc;
}

int monostamp__clock_publish_shared(monostamp__clock *clock)
{
    struct monostamp__state_watch *watch = clock->watch;
    monostamp__os_signals held;
    lock_watch(watch, &held);
    monostamp__clock_publish(clock, monostamp__state_counts(watch->mapping));
    unlock_watch(watch, &held);
    return MONOSTAMP_OK;
}

void monostamp__clock_unshare(monostamp__clock *clock)
{
    struct monostamp__state_watch *watch = clock->watch;
    if (watch == NULL)
        return;
    monostamp__clock_publish(clock, monostamp__state_counts(watch->mapping));
    monostamp__os_unguard(watch->mapping);
    monostamp__state_close(watch->mapping, watch->mapping_size);
    while (watch->retired != NULL) {
        struct retired *r = watch->retired;
        watch->retired = r->next;
        monostamp__os_unguard(r->mapping);
        monostamp__state_close(r->mapping, r->size);
        free_retired(r);
    }
    monostamp__os_place_free(watch->place);
    free(watch);
    clock->watch = NULL;
    atomic_store_explicit(&clock->recheck_at_ns, INT64_MAX, RELAXED);
}
