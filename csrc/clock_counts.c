/*
 * clock_counts.c: a clock's counters added to a state file's counts, so
 * that a run can say what the clocks of all its processes did.
 *
 * A stamp only updates its own clock's counters, in process memory
 * (clock.c); nothing here is on a stamp's path.  A clock adds what it has
 * not published yet to the file's header (state_file.h) at its rare
 * checkpoints, when it leaves the file, when asked, and, for the default
 * clock, at exit.  Each count goes out once: the part already published is
 * advanced by compare-and-swap before the file's sum grows by the rest, so
 * threads publishing one clock at once never add a count twice.
 */
#include "config.h"

#include "clock_layout.h"
#include "clock_share.h"
#include "os.h"
#include "state_file.h"

#define RELAXED memory_order_relaxed

/* Adds to `cell` what `now` holds beyond `published`, and records it
 * published.  A counter bumped by racing threads can lose an update and
 * step back (clock.c): below what was published it adds nothing. */
static void publish_sum(_Atomic uint64_t *published, uint64_t now, _Atomic uint64_t *cell)
{
    uint64_t seen = atomic_load_explicit(published, RELAXED);
    while (now > seen) {
        if (atomic_compare_exchange_weak_explicit(published, &seen, now, RELAXED, RELAXED)) {
            atomic_fetch_add_explicit(cell, now - seen, RELAXED);
            return;
        }
    }
}

static void raise_count(_Atomic uint64_t *cell, uint64_t value)
{
    uint64_t seen = atomic_load_explicit(cell, RELAXED);
    while (seen < value &&
           !atomic_compare_exchange_weak_explicit(cell, &seen, value, RELAXED, RELAXED))
        ;
}

void monostamp__clock_publish(monostamp__clock *clock, _Atomic uint64_t *counts)
{
    monostamp_stats stats;
    monostamp_clock_stats((const monostamp_clock *)(const void *)clock, &stats);
    publish_sum(&clock->published_stamps, stats.readings, counts + MONOSTAMP__COUNT_STAMPS);
    publish_sum(&clock->published_repeats, stats.duplicates, counts + MONOSTAMP__COUNT_REPEATS);
    publish_sum(&clock->published_backward, stats.backward_steps,
                counts + MONOSTAMP__COUNT_BACKWARD);
    /* A lead says how far stamps ran ahead of real time: a manual clock's
     * readings are whatever a test set, so its "lead" (years, after a
     * set_ns far back) measures nothing and stays out of the file's. */
    if (stats.max_lead_ns > 0 && clock->source != MONOSTAMP_SOURCE_MANUAL)
        raise_count(counts + MONOSTAMP__COUNT_LEAD, (uint64_t)stats.max_lead_ns);
}

void monostamp__clock_forget_counts(monostamp__clock *clock)
{
    monostamp_stats stats;
    monostamp_clock_stats((const monostamp_clock *)(const void *)clock, &stats);
    raise_count(&clock->published_stamps, stats.readings);
    raise_count(&clock->published_repeats, stats.duplicates);
    raise_count(&clock->published_backward, stats.backward_steps);
}

int monostamp_clock_publish(monostamp_clock *storage, const char *path)
{
    if (storage == NULL || (path != NULL && path[0] == '\0'))
        return MONOSTAMP_EINVAL;
    monostamp__clock *clock = clock_of(storage);
    if (clock->destroyed)
        return MONOSTAMP_EINVAL;
    if (path == NULL) {
        if (clock->watch == NULL)
            return MONOSTAMP_ENOTSUP;
        return monostamp__clock_publish_shared(clock);
    }
    /* Mapped as a clock would map it, with the same checks (another
     * user's file is refused); one the path no longer names is made as a
     * clock would make it, its default lead ahead, never "no stamp yet". */
    monostamp__os_place *place;
    monostamp__os_file_id id;
    _Atomic int64_t *cell;
    void *mapping;
    size_t size;
    int rc = monostamp__os_place_pin(path, &place);
    if (rc != MONOSTAMP_OK)
        return rc;
    rc = monostamp__os_place_id(place, &id);
    if (rc == MONOSTAMP_OK)
        rc = monostamp__state_file_open(place, 0, MONOSTAMP_DEFAULT_MAX_LEAD_NS, NULL, &cell,
                                        &mapping, &size, &id);
    monostamp__os_place_free(place);
    if (rc != MONOSTAMP_OK)
        return rc;
    monostamp__clock_publish(clock, monostamp__state_counts(mapping));
    monostamp__state_close(mapping, size);
    return MONOSTAMP_OK;
}
