/*
 * clock.c: the policies, over one atomic "last value handed out".
 *
 * Every stamp is a compare-and-swap on *last_ns, so stamps from any number
 * of threads, or processes sharing the atomic, are ordered by the atomic's
 * modification order.  Relaxed ordering is enough for that: coherence alone
 * makes a read-modify-write see every earlier write to the same atomic, so
 * a stamp that happens after another (in any thread) is larger.  No other
 * memory is published through *last_ns, so nothing stronger is needed.
 */
#include "config.h"

#include <errno.h>

#include "clock_layout.h"
#include "clock_share.h"
#include "clock_stamp.h"
#include "os.h"
#include "state_file.h"
#include "zone.h"

#define RELAXED memory_order_relaxed

/* The source's raw reading.  A switch rather than a function pointer: the
 * platform read is inline (os.h), and "manual", the seam tests use, is one
 * atomic load. */
static inline int read_source(monostamp__clock *clock, int64_t *out_ns, int64_t *out_ns_of_second)
{
    if (clock->source == MONOSTAMP_SOURCE_MANUAL) {
        *out_ns = atomic_load_explicit(&clock->manual_ns, RELAXED);
        *out_ns_of_second = -1; /* not given apart: floor_us_of() divides */
        return MONOSTAMP_OK;
    }
    return monostamp__os_clock_read_parts(clock->source, out_ns, out_ns_of_second);
}

/*
 * The counters are diagnostics, kept on the hot path, so they are updated
 * with a relaxed load and store rather than a locked read-modify-write: a
 * plain move on x86 and ARM.  They are exact for a clock used by one thread
 * at a time; threads racing on one clock may lose an update, so there they
 * are lower bounds.  Their atomicity still makes every read well defined.
 */
static inline void bump(_Atomic uint64_t *counter)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, RELAXED) + 1, RELAXED);
}

static inline void bump_by(_Atomic uint64_t *counter, uint64_t n)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, RELAXED) + n, RELAXED);
}

static inline void raise_to(_Atomic int64_t *target, int64_t value)
{
    if (value > atomic_load_explicit(target, RELAXED))
        atomic_store_explicit(target, value, RELAXED);
}

/* The whole microsecond at or below ns (floor, also before 1970). */
static inline int64_t floor_us(int64_t ns)
{
    int64_t r = ns % 1000;
    return r < 0 ? ns - r - 1000 : ns - r;
}

/* floor_us(reading), given the ns the reading lies past its second where
 * the source gave them apart (0 to 10^9 - 1; anything else: not given).
 * A second is whole µs, so the floor is the reading less that part's ns
 * past its µs: a 32-bit division by a constant, which the compiler makes
 * a short multiply, where the 64-bit reading's takes a long one, and a
 * µs stamp's compare-and-swap waits on the floor. */
static inline int64_t floor_us_of(int64_t reading, int64_t ns_of_second)
{
    if (MONOSTAMP__LIKELY((uint64_t)ns_of_second < (uint64_t)MONOSTAMP__NS_PER_S))
        return reading - (int64_t)((uint32_t)ns_of_second % 1000u);
    return floor_us(reading);
}

/* What candidate() says of a reading besides its stamp. */
enum {
    FRESH = 0,   /* the stamp is the reading's own (floored to the µs under the µs policy) */
    REPEATED = 2 /* the reading was not above the last stamp: raised, or held at it */
};

/* The candidate a policy makes of `reading` given `last`: FRESH or
 * REPEATED with *out set, or ERANGE.  For the µs policy the reading's own
 * stamp is its floor, so a reading in the same µs as `last` is REPEATED. */
static inline int candidate(int policy, int64_t reading, int64_t last,
                            int64_t *out)
{
    if (policy == MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT) {
        if (reading > last) {
            *out = reading;
            return FRESH;
        }
        if (last == INT64_MAX)
            return MONOSTAMP_ERANGE;
        *out = last + 1;
        return REPEATED;
    }
    if (policy == MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT) {
        int64_t us = floor_us(reading);
        if (us > last) {
            *out = us;
            return FRESH;
        }
        if (last > INT64_MAX - 1000)
            return MONOSTAMP_ERANGE;
        /* The next whole µs after last: last + 1000 when last is whole. */
        *out = floor_us(last) + 1000;
        return REPEATED;
    }
    /* MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES */
    *out = reading > last ? reading : last;
    return reading > last ? FRESH : REPEATED;
}

/* Internal outcomes of one try at a stamp, above every error code: */
enum {
    AGAIN = 1,      /* the lead bound waited (or the state moved): read again */
    MEASURE = 2     /* past the bound against the reading: try again, measuring
                       against the reference (lead_beyond) */
};

/* Which try at a stamp settle() makes. */
enum try_kind {
    FIRST_TRY = 0, /* the common one: MEASURE rather than measure */
    MEASURED_TRY,  /* measures against the reference; may wait */
    LAST_TRY       /* measures, and fails rather than wait: the call has
                      waited as long as one may */
};

/* How long one stamp may wait for its source at most:
 * max_lead_ns + MONOSTAMP_LEAD_WAIT_MARGIN_NS, saturated. */
static int64_t wait_limit_ns(const monostamp__clock *clock)
{
    return clock->max_lead_ns > INT64_MAX - MONOSTAMP_LEAD_WAIT_MARGIN_NS
               ? INT64_MAX
               : clock->max_lead_ns + MONOSTAMP_LEAD_WAIT_MARGIN_NS;
}

static MONOSTAMP__NOINLINE int lead_error(monostamp__clock *clock)
{
    bump(&clock->lead_errors);
    return MONOSTAMP_ELEAD;
}

/* Drawing has run `lead` ahead of the reference, past `bound`: fail, or
 * wait for the source.  Only draws get here (lead_beyond): a lead left by
 * a step of the source is re-anchored instead, so a wait is at most what
 * the draws themselves ran ahead. */
static MONOSTAMP__NOINLINE int lead_exceeded(monostamp__clock *clock, int64_t lead, int64_t bound,
                                             int may_wait)
{
    if (!may_wait || clock->on_lead == MONOSTAMP_ON_LEAD_ERROR ||
        clock->source == MONOSTAMP_SOURCE_MANUAL)
        return lead_error(clock);
    int64_t behind = lead - bound;
    bump(&clock->lead_waits);
    /* Naps of at most 10 ms, so a wall clock stepped meanwhile is re-read
     * rather than waited out blindly.  The host's waiter brackets each
     * nap: Python lets its GIL go and runs signal handlers after. */
    const monostamp_waiter *waiter = atomic_load_explicit(&clock->waiter, memory_order_acquire);
    void *token = waiter != NULL && waiter->before_nap != NULL ? waiter->before_nap(waiter->context)
                                                               : NULL;
    monostamp__os_nap_ns(behind < 10000000 ? behind : 10000000);
    if (waiter != NULL && waiter->after_nap != NULL && waiter->after_nap(waiter->context, token))
        return MONOSTAMP_EINTR;
    return AGAIN;
}

/*
 * The reference a lead is measured against: real time that never steps
 * back.  For a platform source, the monotonic clock plus the state's
 * anchor (the highest reading-minus-monotonic seen, state_file.h), so that
 * after the wall clock is set back the reference goes on from where it
 * was, as the monotonic clock does; never below the reading itself, which
 * a step forward moves at once.  For the manual source, the highest
 * reading it was set away from.
 */
static int64_t reference_ns(monostamp__clock *clock, _Atomic int64_t *cell, int64_t reading)
{
    int64_t ref;
    if (clock->source == MONOSTAMP_SOURCE_MANUAL) {
        ref = atomic_load_explicit(&clock->manual_anchor, RELAXED);
    } else {
        int64_t anchor = atomic_load_explicit(cell + MONOSTAMP__STATE_ANCHOR, RELAXED);
        int64_t monotonic = monostamp__os_monotonic_of(clock->source);
        ref = anchor > INT64_MAX - monotonic ? INT64_MAX : anchor + monotonic;
    }
    return ref > reading ? ref : reading;
}

/*
 * A stamp would lead its reading by more than `bound` (the draw's bound).
 * It runs ahead only if it also leads the reference by that much: after
 * the wall clock was set back the reading is behind, the reference is
 * not, and the stamp goes out (MONOSTAMP_OK).  A lead past the bound that
 * is more than one call may wait for was made by no draw of a bounded
 * clock: a step the anchor never saw (across a reboot, in a state file
 * that had no anchor), a file made or written ahead.  Waiting it out
 * could take hours, so the anchor moves up to the state instead (the
 * bound counts from where the clock stands) and the stamp goes out.
 * Otherwise draws ran ahead (this clock's, or another's on the same state
 * with a larger bound): wait or fail as on_lead says (fail if not `may_wait`:
 * the call's last try).
 */
static MONOSTAMP__NOINLINE int lead_beyond(monostamp__clock *clock, _Atomic int64_t *cell,
                                           int64_t reading, int64_t last, int64_t stamp,
                                           int64_t bound, int may_wait)
{
    int64_t ref = reference_ns(clock, cell, reading);
    if (stamp <= ref || clock_distance(stamp, ref) <= bound)
        return MONOSTAMP_OK;
    int64_t lead = clock_distance(stamp, ref);
    if (lead - bound > wait_limit_ns(clock) && last > ref) {
        if (clock->source == MONOSTAMP_SOURCE_MANUAL)
            monostamp__state_raise(&clock->manual_anchor, last);
        else
            monostamp__state_raise(cell + MONOSTAMP__STATE_ANCHOR,
                                   monostamp__state_anchor_of(clock->source, last));
        return MONOSTAMP_OK;
    }
    return lead_exceeded(clock, lead, bound, may_wait);
}

/* A reading below the previous one: counted out of line.  The next
 * checkpoint (clock_share.c) was due at a reading the source has just left
 * behind, perhaps by hours: it is brought down to a few ms from here, so a
 * shared clock keeps looking after its file. */
static MONOSTAMP__NOINLINE void note_backward_step(monostamp__clock *clock, int64_t previous,
                                                   int64_t reading)
{
    bump(&clock->backward_steps);
    raise_to(&clock->largest_backward_ns, clock_distance(previous, reading));
    int64_t due = monostamp__clock_next_checkpoint(reading);
    int64_t seen = atomic_load_explicit(&clock->recheck_at_ns, RELAXED);
    /* Only ever lowered, so a destroyed clock's INT64_MIN stays. */
    while (seen > due && !atomic_compare_exchange_weak_explicit(&clock->recheck_at_ns, &seen, due,
                                                                RELAXED, RELAXED))
        ;
}

/*
 * Bookkeeping for a reading at or below the last stamp, done after the
 * compare-and-swap so that its stores do not delay the locked one.  A
 * frozen or coarse source takes this path on every stamp, so it stores as
 * little as it can: the stamp, one counter, and the reading when it moved.
 * The lead (stamp minus reading) is not stored per stamp: the current one
 * is slow_stamp - slow_reading while slow_stamp is the last stamp, and a
 * run's largest is folded into max_lead_seen_ns when the next run starts
 * (monostamp_clock_stats() folds the latest).
 *
 * The previous reading is slow_reading if no stamp was taken on the fast
 * path since (the last stamp is still slow_stamp), else the last stamp
 * itself, which the fast path sets to its reading.  Exact for a clock used
 * by one thread at a time; with several, "previous" is the one ordered last.
 */
static MONOSTAMP__NOINLINE void note_slow_path(monostamp__clock *clock, int policy, int64_t reading,
                                    int64_t last, int64_t stamp)
{
    int64_t slow_reading = atomic_load_explicit(&clock->slow_reading, RELAXED);
    int64_t slow_stamp = atomic_load_explicit(&clock->slow_stamp, RELAXED);
    int64_t previous = slow_stamp == last ? slow_reading : last;

    bump(&clock->duplicates);
    if (policy == MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES)
        bump(&clock->holds);
    if (reading < previous)
        note_backward_step(clock, previous, reading);
    if (reading != slow_reading || slow_stamp == INT64_MIN) {
        if (slow_stamp != INT64_MIN)
            raise_to(&clock->max_lead_seen_ns, clock_distance(slow_stamp, slow_reading));
        atomic_store_explicit(&clock->slow_reading, reading, RELAXED);
    }
    atomic_store_explicit(&clock->slow_stamp, stamp, RELAXED);
}

/* `last` read from `cell` is below what the clock handed out or joined
 * at (clock->seen_ns), or RETIRED on a shared clock.  Out of line and
 * called in tail position, so that the compare-and-swap loop keeps its
 * registers (a call it returned from would cost every stamp a save and a
 * restore).  AGAIN has the stamp made afresh, from a new reading:
 *   - the clock moved to another state meanwhile (another thread's rejoin,
 *     monostamp_default_share()): the stamp goes there;
 *   - RETIRED: the clock rejoins through its state file's place
 *     (clock_share.c) first;
 *   - below: the state went backwards (overwritten in place, replaced by
 *     a file nobody raised).  Other processes may have handed out any
 *     value up to the reference of real time plus the lead bound, so the
 *     state is raised above all of that before anything is handed out.
 * Or the error that fails the stamp, nothing handed out. */
static MONOSTAMP__NOINLINE int unusual_state(monostamp__clock *clock, _Atomic int64_t *cell,
                                             int64_t last)
{
    if (atomic_load_explicit(&clock->last_ns, memory_order_acquire) != cell)
        return AGAIN;
    int saved = errno; /* the file calls' leave it as found (config.h) */
    int rc = last == MONOSTAMP__STATE_RETIRED ? monostamp__clock_rejoin(clock, cell)
                                              : monostamp__clock_recover(clock, cell);
    errno = saved;
    return rc == MONOSTAMP_OK ? AGAIN : rc;
}

/* A state below what this clock saw, or retired (a private state that
 * merely reached INT64_MAX goes on to the policy's own rule).  Tested
 * only where a stamp reads the state: a compare-and-swap that failed, or
 * the rare read of settle(). */
#define UNUSUAL_STATE(clock, last, seen)                         \
    (MONOSTAMP__UNLIKELY((last) < (seen)) ||                     \
     (MONOSTAMP__UNLIKELY((last) == MONOSTAMP__STATE_RETIRED) && (clock)->watch != NULL))

/* A draw's bound that is the clock's own max_lead_ns: a constant, so that
 * the common entry points load the field only where it is compared (a
 * value loaded up front would hold a register, saved by every stamp). */
#define OWN_BOUND INT64_C(-1)

/* The bound a draw keeps (0: none): the state's one bound, which every
 * reader of a shared state keeps (state_file.h), and which holds this
 * clock's own and the draw's, promised before (a manual clock's, whose
 * readings are its own, is its own state's: clock_layout.h, bound_at);
 * and a draw's own, for a manual clock, which promises nothing. */
static MONOSTAMP__ALWAYS_INLINE int64_t draw_bound(monostamp__clock *clock, int64_t bound)
{
    int64_t limit = atomic_load_explicit(atomic_load_explicit(&clock->bound_at, RELAXED), RELAXED);
    if (bound != OWN_BOUND && bound != 0 && (limit == 0 || bound < limit))
        limit = bound;
    return limit;
}

/* Turns a reading into a stamp under a monotonic policy and the lead
 * bound `bound` (OWN_BOUND, or a draw's own; 0: none): OK, an error, AGAIN
 * when the bound made it wait, or, on the FIRST_TRY (`try_kind` is a
 * constant there), MEASURE for a stamp past the bound against its reading: the
 * common try returns at once, so that nothing it holds must live across a
 * call (each stamp would pay the saves), and the try made out of line
 * measures against the reference. */
static MONOSTAMP__ALWAYS_INLINE int settle(monostamp__clock *clock, int policy, int64_t reading,
                                           int64_t ns_of_second, int64_t bound, int try_kind,
                                           int64_t *out_ns)
{
    /* Acquire: a state moved by monostamp_default_share() is seen whole. */
    _Atomic int64_t *cell = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
    /* What this clock handed out last, or joined its state at.  Before
     * the state (acquire, paired with the release below): a state found
     * below it went backwards, not merely raced by another thread. */
    int64_t seen = atomic_load_explicit(&clock->seen_ns, memory_order_acquire);
    /*
     * The state itself is not loaded first: the stamp is made as if it
     * held `seen`, as it does unless another thread or process stamped
     * since this clock did, and the compare-and-swap checks that.  So the
     * compare it makes anyway is also the check for a state gone
     * backwards or retired: a state that holds `seen` is neither, and one
     * that does not hands back its value, which is looked at before any
     * stamp is made from it.  (A retired state reads INT64_MAX, above
     * which no policy stamps: a `seen` that high takes the loop's read.)
     */
    int64_t last = seen, stamp;
    int kind;
    /* The common stamp: the reading's own (floored, under the µs policy)
     * above `seen`.  It leads no reading, so the bound tests nothing. */
    stamp = policy == MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT
                ? floor_us_of(reading, ns_of_second)
                : reading;
    if (MONOSTAMP__LIKELY(stamp > seen)) {
        if (MONOSTAMP__LIKELY(atomic_compare_exchange_weak_explicit(cell, &last, stamp, RELAXED,
                                                                    RELAXED))) {
            atomic_store_explicit(&clock->seen_ns, stamp, memory_order_release);
            bump(&clock->fresh_readings);
            *out_ns = stamp;
            return MONOSTAMP_OK;
        }
        if (UNUSUAL_STATE(clock, last, seen))
            return unusual_state(clock, cell, last);
    } else if (policy == MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT && MONOSTAMP__LIKELY(seen != INT64_MAX)) {
        /* The forced increment of a coarse or frozen source, on a straight
         * path too: the ns rule's last + 1 (candidate()) from `seen`, which
         * is at or above the reading, so the stamp leads it and the bound
         * is tested.  Past the bound, or raced, the loop below decides. */
        stamp = seen + 1;
        int64_t limit = draw_bound(clock, bound);
        if (MONOSTAMP__LIKELY(limit == 0 ||
                              (uint64_t)stamp - (uint64_t)reading <= (uint64_t)limit)) {
            if (MONOSTAMP__LIKELY(atomic_compare_exchange_weak_explicit(cell, &last, stamp,
                                                                        RELAXED, RELAXED))) {
                kind = REPEATED;
                goto stamped;
            }
            if (UNUSUAL_STATE(clock, last, seen))
                return unusual_state(clock, cell, last);
        }
    }
    /* Otherwise the policy's rule, from what the state holds or (until a
     * compare-and-swap says otherwise) is taken to hold. */
    for (;;) {
        kind = candidate(policy, reading, last, &stamp);
        if (MONOSTAMP__UNLIKELY(kind < 0 || stamp == last)) {
            /* At the end of the range, or allowDuplicates at or below
             * `last`: nothing to write, so no compare-and-swap reads the
             * state; it is read here. */
            int64_t now = atomic_load_explicit(cell, RELAXED);
            if (UNUSUAL_STATE(clock, now, seen))
                return unusual_state(clock, cell, now);
            if (now != last) {
                last = now;
                continue;
            }
            if (kind < 0)
                return kind;
            break;
        }
        /* A stamp at or below its reading (a fresh one) pays one test;
         * one further ahead than the bound is measured again against the
         * reference, and goes out, waits or fails. */
        if (stamp > reading) {
            int64_t limit = draw_bound(clock, bound);
            /* stamp - reading, exact in 64 unsigned bits for stamp > reading. */
            if (limit != 0 && (uint64_t)stamp - (uint64_t)reading > (uint64_t)limit) {
                if (try_kind == FIRST_TRY)
                    return MEASURE;
                int rc = lead_beyond(clock, cell, reading, last, stamp, limit,
                                     try_kind != LAST_TRY);
                if (rc != MONOSTAMP_OK)
                    return rc;
            }
        }
        if (atomic_compare_exchange_weak_explicit(cell, &last, stamp,
                                                  RELAXED, RELAXED))
            break;
        /* The state holds `last`: gone backwards, retired, or moved on
         * by others (the candidate is made again from it). */
        if (UNUSUAL_STATE(clock, last, seen))
            return unusual_state(clock, cell, last);
    }
stamped:
    atomic_store_explicit(&clock->seen_ns, stamp, memory_order_release);
    if (kind == REPEATED) {
        /* A frozen or coarse source repeats its reading for a whole tick:
         * while it does, only the count and the stamp change (a forcing
         * policy's: allowDuplicates' holds returned above). */
        if (MONOSTAMP__LIKELY(reading == atomic_load_explicit(&clock->slow_reading, RELAXED) &&
                   last == atomic_load_explicit(&clock->slow_stamp, RELAXED) &&
                   policy != MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES)) {
            bump(&clock->duplicates);
            atomic_store_explicit(&clock->slow_stamp, stamp, RELAXED);
        } else {
            note_slow_path(clock, policy, reading, last, stamp);
        }
    } else {
        /* One counter per stamp either way: readings = fresh + duplicates. */
        bump(&clock->fresh_readings);
    }
    *out_ns = stamp;
    return MONOSTAMP_OK;
}

/* What a stamp may hold: any ns, or whole microseconds only (for values
 * that hold no more: a Python datetime, a double near today). */
enum grain { GRAIN_NS, GRAIN_US };

/* One reading turned into a stamp; AGAIN or MEASURE as settle() says.  At µs
 * grain the nanosecond policy takes the µs policy's rule on the same
 * state, so µs stamps stay distinct and interleave with ns ones; the two
 * policies without that guarantee give their stamp floored to the µs. */
static MONOSTAMP__ALWAYS_INLINE int next_once(monostamp__clock *clock, enum grain grain,
                                              int64_t bound, int try_kind, int64_t *out_ns)
{
    /* Set by read_source; the 0s quiet -Wmaybe-uninitialized. */
    int64_t reading = 0, ns_of_second = 0;
    int rc = read_source(clock, &reading, &ns_of_second);
    if (rc != MONOSTAMP_OK)
        return rc;
    /* Every few ms of readings the clock samples its anchor and, if
     * shared, looks whether its file was replaced (clock_share.c). */
    if (MONOSTAMP__UNLIKELY(reading >= atomic_load_explicit(&clock->recheck_at_ns, RELAXED)) &&
        (rc = monostamp__clock_checkpoint(clock, reading)) != MONOSTAMP_OK)
        return rc;
    int policy = atomic_load_explicit(&clock->policy, RELAXED);
    /* The grain's common policy (the ns rule, which µs grain makes the µs
     * rule) settled as a constant: a straight path with no test of the
     * policy, for a reader that asks once in a while, whose branches the
     * predictor has forgotten (a taken one costs it a fetch). */
    if (MONOSTAMP__LIKELY(policy == MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT))
        return settle(clock,
                      grain == GRAIN_US ? MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT
                                        : MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                      reading, ns_of_second, bound, try_kind, out_ns);
    if (policy == MONOSTAMP_ACCEPT_PLATFORM_TIME) {
        /* No state to settle against, but a step back is still counted:
         * the previous reading sits on the line the counter is on. */
        int64_t previous = atomic_load_explicit(&clock->apt_reading, RELAXED);
        atomic_store_explicit(&clock->apt_reading, reading, RELAXED);
        bump(&clock->fresh_readings);
        if (MONOSTAMP__UNLIKELY(reading < previous))
            note_backward_step(clock, previous, reading);
        *out_ns = grain == GRAIN_US ? floor_us(reading) : reading;
        return MONOSTAMP_OK;
    }
    rc = settle(clock, policy, reading, ns_of_second, bound, try_kind, out_ns);
    /* The forcing policies' µs stamps are whole already; allowDuplicates'
     * max(r, last) may hold a ns stamp of another clock on the state. */
    if (grain == GRAIN_US && rc == MONOSTAMP_OK &&
        MONOSTAMP__UNLIKELY(policy == MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES))
        *out_ns = floor_us(*out_ns);
    return rc;
}

/* Whether a call that first waited at `start_ns` (monotonic) has waited
 * as long as one call may, so that its next try is its last. */
static int waited_its_limit(monostamp__clock *clock, int64_t start_ns)
{
    return monostamp__os_monotonic_ns() - start_ns > wait_limit_ns(clock);
}

/* The tries after one that waited, or that was past the bound against its
 * reading: each measures against the reference.  However the lead moves
 * while it waits, a call waits about its limit in all (from `start`, taken
 * after its first nap), then makes one last try that fails rather than
 * waits, with the state as it was.  The last try is still made: on a
 * loaded machine a nap may end far later than asked, and the source has
 * then caught up (the time waited alone must not fail the call).  Kept out
 * of line so that the common call needs no loop and few saved registers.
 * The stamp comes back in two registers, so that the common call's, which
 * never went there, need not live in memory. */
static MONOSTAMP__NOINLINE monostamp__stamped next_measured(monostamp__clock *clock,
                                                         enum grain grain, int64_t bound,
                                                         int first_rc)
{
    monostamp__stamped m = {0, first_rc};
    int saved = errno; /* a nap cut short sets it (config.h) */
    int64_t start = monostamp__os_monotonic_ns();
    for (;;) {
        int try_kind = m.rc == AGAIN && waited_its_limit(clock, start) ? LAST_TRY : MEASURED_TRY;
        if ((m.rc = next_once(clock, grain, bound, try_kind, &m.ns)) != AGAIN) {
            errno = saved;
            return m;
        }
    }
}

/* Inline into every entry point, so the stamp stays in a register (forced:
 * left to itself GCC calls it from monostamp_now, 18 more instructions a
 * stamp, counted with callgrind).  `grain` is a constant in each.  Sets
 * *out_ns on success only. */
static MONOSTAMP__ALWAYS_INLINE int next_stamp(monostamp__clock *clock, enum grain grain,
                                               int64_t bound, int64_t *out_ns)
{
    int64_t ns = 0; /* set on success; the 0 quiets -Wmaybe-uninitialized */
    int rc = next_once(clock, grain, bound, FIRST_TRY, &ns);
    if (MONOSTAMP__UNLIKELY(rc > 0)) {
        monostamp__stamped m = next_measured(clock, grain, bound, rc);
        rc = m.rc;
        ns = m.ns;
    }
    if (rc == MONOSTAMP_OK)
        *out_ns = ns;
    return rc;
}

/* The stamp's offset, for the two entry points that give one. */
static MONOSTAMP__ALWAYS_INLINE int with_offset(monostamp__clock *clock, int64_t ns,
                                                monostamp_stamp *out)
{
    int32_t offset_s;
    int rc = monostamp__zone_offset_fast(clock->zone, ns, &offset_s);
    if (rc != MONOSTAMP_OK)
        return rc;
    out->utc_ns = ns;
    out->offset_s = offset_s;
    return MONOSTAMP_OK;
}

int monostamp_time_ns(monostamp_clock *clock, int64_t *out_ns)
{
    if (clock == NULL || out_ns == NULL)
        return MONOSTAMP_EINVAL;
    return next_stamp(clock_of(clock), GRAIN_NS, OWN_BOUND, out_ns);
}

int monostamp_now(monostamp_clock *clock, monostamp_stamp *out)
{
    if (clock == NULL || out == NULL)
        return MONOSTAMP_EINVAL;
    monostamp__clock *c = clock_of(clock);
    int64_t ns = 0; /* set on success; the 0 quiets -Wmaybe-uninitialized */
    int rc = next_stamp(c, GRAIN_NS, OWN_BOUND, &ns);
    return rc != MONOSTAMP_OK ? rc : with_offset(c, ns, out);
}

int monostamp_time_us(monostamp_clock *clock, int64_t *out_ns)
{
    if (clock == NULL || out_ns == NULL)
        return MONOSTAMP_EINVAL;
    return next_stamp(clock_of(clock), GRAIN_US, OWN_BOUND, out_ns);
}

int monostamp_now_us(monostamp_clock *clock, monostamp_stamp *out)
{
    if (clock == NULL || out == NULL)
        return MONOSTAMP_EINVAL;
    monostamp__clock *c = clock_of(clock);
    int64_t ns = 0;
    int rc = next_stamp(c, GRAIN_US, OWN_BOUND, &ns);
    return rc != MONOSTAMP_OK ? rc : with_offset(c, ns, out);
}

monostamp__stamped monostamp__clock_time_ns(monostamp__clock *clock)
{
    monostamp__stamped s = {0, 0};
    s.rc = next_stamp(clock, GRAIN_NS, OWN_BOUND, &s.ns);
    return s;
}

monostamp__stamped monostamp__clock_time_us(monostamp__clock *clock)
{
    monostamp__stamped s = {0, 0};
    s.rc = next_stamp(clock, GRAIN_US, OWN_BOUND, &s.ns);
    return s;
}

int monostamp_draw(monostamp_clock *clock, unsigned flags, int64_t max_lead_ns,
                   monostamp_stamp *out)
{
    if (clock == NULL || out == NULL || max_lead_ns < 0 ||
        (flags & ~(unsigned)(MONOSTAMP_DRAW_US | MONOSTAMP_DRAW_OFFSET)) != 0)
        return MONOSTAMP_EINVAL;
    monostamp__clock *c = clock_of(clock);
    int64_t bound = c->max_lead_ns;
    if (max_lead_ns != 0 && (bound == 0 || max_lead_ns < bound))
        bound = max_lead_ns;
    /* A draw's bound is a promise to whoever reads its values (a patched
     * caller's 5 ms): the state keeps it for every clock on it. */
    if (max_lead_ns != 0 && c->source != MONOSTAMP_SOURCE_MANUAL)
        monostamp__state_promise(atomic_load_explicit(&c->last_ns, memory_order_acquire),
                                 max_lead_ns);
    int64_t ns = 0;
    int rc = (flags & MONOSTAMP_DRAW_US) ? next_stamp(c, GRAIN_US, bound, &ns)
                                         : next_stamp(c, GRAIN_NS, bound, &ns);
    /* The draw's own bound is waited for no longer than one call waits
     * (another clock on the state drew it ahead, within its own, larger
     * bound, and a loaded machine made the naps long): the clock's own
     * bound then holds, so that a caller promised "waits, never fails"
     * (a patched datetime.now()) gets its stamp. */
    if (rc == MONOSTAMP_ELEAD && bound != c->max_lead_ns && c->on_lead == MONOSTAMP_ON_LEAD_WAIT &&
        c->source != MONOSTAMP_SOURCE_MANUAL)
        rc = (flags & MONOSTAMP_DRAW_US) ? next_stamp(c, GRAIN_US, OWN_BOUND, &ns)
                                         : next_stamp(c, GRAIN_NS, OWN_BOUND, &ns);
    if (rc != MONOSTAMP_OK)
        return rc;
    if (flags & MONOSTAMP_DRAW_OFFSET)
        return with_offset(c, ns, out);
    out->utc_ns = ns;
    out->offset_s = 0;
    return MONOSTAMP_OK;
}

/* ------------------------------------------------------------ blocks */

/* One reading turned into a block of n stamps `step` apart, the last of
 * which becomes the clock's last stamp; AGAIN if the lead bound waited. */
static int take_once(monostamp__clock *clock, int64_t n, int64_t *first_ns, int64_t *step_ns,
                     int may_wait)
{
    int64_t reading = 0, ns_of_second = 0;
    int rc = read_source(clock, &reading, &ns_of_second);
    if (rc != MONOSTAMP_OK)
        return rc;
    if (MONOSTAMP__UNLIKELY(reading >= atomic_load_explicit(&clock->recheck_at_ns, RELAXED)) &&
        (rc = monostamp__clock_checkpoint(clock, reading)) != MONOSTAMP_OK)
        return rc;
    int policy = atomic_load_explicit(&clock->policy, RELAXED);
    int64_t step;
    if (policy == MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT)
        step = 1;
    else if (policy == MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT)
        step = 1000;
    else
        return MONOSTAMP_EPOLICY; /* a block of equal stamps would be no block */
    if (n - 1 > INT64_MAX / step)
        return MONOSTAMP_ERANGE;
    int64_t span = (n - 1) * step; /* from the first stamp to the last */
    _Atomic int64_t *cell = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
    /* A block longer than the bound would lead its source even if the
     * source caught up with its first stamp: no wait can help. */
    int64_t bound = draw_bound(clock, OWN_BOUND);
    if (bound != 0 && span > bound)
        return lead_error(clock);

    int64_t seen = atomic_load_explicit(&clock->seen_ns, memory_order_acquire);
    int64_t last = atomic_load_explicit(cell, RELAXED), first, end;
    int kind;
    for (;;) {
        if (UNUSUAL_STATE(clock, last, seen))
            return unusual_state(clock, cell, last);
        kind = candidate(policy, reading, last, &first);
        if (kind < 0)
            return kind;
        if (first > INT64_MAX - span)
            return MONOSTAMP_ERANGE;
        end = first + span;
        if (bound != 0 && end > reading && clock_distance(end, reading) > bound) {
            rc = lead_beyond(clock, cell, reading, last, end, bound, may_wait);
            if (rc != MONOSTAMP_OK)
                return rc;
        }
        if (atomic_compare_exchange_weak_explicit(cell, &last, end, RELAXED, RELAXED))
            break;
    }
    atomic_store_explicit(&clock->seen_ns, end, memory_order_release);
    /* Counted as n stamps from one reading: the first is fresh if the
     * reading was above the last stamp, every other one a forced increment;
     * the slow path keeps the lead the block leaves (end - reading). */
    uint64_t forced = (uint64_t)(n - 1) + (kind == REPEATED);
    if (kind == FRESH)
        bump(&clock->fresh_readings);
    if (forced > 0) {
        bump_by(&clock->duplicates, forced - 1);
        note_slow_path(clock, policy, reading, last, end);
    }
    *first_ns = first;
    *step_ns = step;
    return MONOSTAMP_OK;
}

int monostamp_clock_take(monostamp_clock *storage, int64_t n, int64_t *first_ns,
                         int64_t *step_ns)
{
    if (storage == NULL || first_ns == NULL || n < 1)
        return MONOSTAMP_EINVAL;
    monostamp__clock *clock = clock_of(storage);
    int64_t step = 0;
    int rc = take_once(clock, n, first_ns, &step, 1);
    if (rc == AGAIN) {
        /* As next_measured: about the limit in all, then a last try. */
        int64_t start = monostamp__os_monotonic_ns();
        while (rc == AGAIN)
            rc = take_once(clock, n, first_ns, &step, !waited_its_limit(clock, start));
    }
    if (rc == MONOSTAMP_OK && step_ns != NULL)
        *step_ns = step;
    return rc;
}
