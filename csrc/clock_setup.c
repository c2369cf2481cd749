/*
 * clock_setup.c: everything about a clock but taking stamps (clock.c):
 * making and freeing it, its settings, the manual source, the counters,
 * and the facts of the sources.
 */
#include "config.h"

#include <string.h>

#include "clock_layout.h"
#include "clock_share.h"
#include "os.h"
#include "zone.h"

#define RELAXED memory_order_relaxed

int monostamp_clock_init(monostamp_clock *storage, const monostamp_options *options)
{
    monostamp_options defaults;
    monostamp__clock *clock;
    int rc;

    if (storage == NULL)
        return MONOSTAMP_EINVAL;
    if (options == NULL) {
        monostamp_options_init(&defaults);
        options = &defaults;
    }
    if ((rc = monostamp_options_check(options, NULL)) != MONOSTAMP_OK)
        return rc;

    memset(storage, 0, sizeof *storage);
    clock = clock_of(storage);
    clock->source = options->source;
    clock->on_lead = options->on_lead;
    clock->max_lead_ns = options->max_lead_ns;
    atomic_init(&clock->policy, options->policy);
    atomic_init(&clock->manual_ns, options->has_start_ns ? options->start_ns : 0);
    /* No stamp yet: the first reading of any value is above "last". */
    atomic_init(&clock->own_state[MONOSTAMP__STATE_LAST], INT64_MIN);
    atomic_init(&clock->own_state[MONOSTAMP__STATE_ANCHOR], 0);
    atomic_init(&clock->manual_anchor, INT64_MIN);
    atomic_init(&clock->slow_stamp, INT64_MIN);
    atomic_init(&clock->apt_reading, INT64_MIN);
    atomic_init(&clock->seen_ns, INT64_MIN);
    atomic_init(&clock->anchor_seen, 0);
    atomic_init(&clock->recheck_at_ns, INT64_MAX);
    atomic_init(&clock->last_ns, &clock->own_state[MONOSTAMP__STATE_LAST]);
    /* Its own state keeps its own bound (state_file.h's BOUND). */
    atomic_init(&clock->own_state[MONOSTAMP__STATE_BOUND], options->max_lead_ns);
    atomic_init(&clock->bound_at, &clock->own_state[MONOSTAMP__STATE_BOUND]);
    atomic_init(&clock->waiter, NULL);

    /* A platform source's clock anchors its reference of real time now,
     * and again at every checkpoint, a few ms of readings apart, so that a
     * step back of the wall clock finds an anchor from before it. */
    int64_t reading = 0;
    if (clock->source != MONOSTAMP_SOURCE_MANUAL &&
        monostamp__os_clock_read(clock->source, &reading) == MONOSTAMP_OK) {
        int64_t anchor = monostamp__state_anchor_of(clock->source, reading);
        atomic_store_explicit(&clock->own_state[MONOSTAMP__STATE_ANCHOR], anchor, RELAXED);
        atomic_store_explicit(&clock->anchor_seen, anchor, RELAXED);
        atomic_store_explicit(&clock->recheck_at_ns, monostamp__clock_next_checkpoint(reading),
                              RELAXED);
    }

    if ((rc = monostamp_zone_open(options->zone, &clock->zone)) != MONOSTAMP_OK) {
        clock->zone = NULL;
        return rc;
    }
    if (options->shared_path != NULL &&
        (rc = monostamp__clock_share(clock, options->shared_path, options->trust_group)) !=
            MONOSTAMP_OK) {
        monostamp_zone_close(clock->zone);
        clock->zone = NULL;
        return rc;
    }
    return MONOSTAMP_OK;
}

void monostamp_clock_destroy(monostamp_clock *storage)
{
    if (storage == NULL)
        return;
    monostamp__clock *clock = clock_of(storage);
    monostamp__clock_unshare(clock);
    if (clock->zone != NULL)
        monostamp_zone_close(clock->zone);
    clock->zone = NULL;
    atomic_store_explicit(&clock->bound_at, &clock->own_state[MONOSTAMP__STATE_BOUND],
                          RELAXED);
    atomic_store_explicit(&clock->last_ns, &clock->own_state[MONOSTAMP__STATE_LAST],
                          memory_order_release);
    /* Every later call fails with MONOSTAMP_EINVAL: the settings check the
     * flag, and a stamp, which reads recheck_at_ns anyway, finds every
     * reading past INT64_MIN and asks clock_share.c, which checks it. */
    clock->destroyed = 1;
    atomic_store_explicit(&clock->recheck_at_ns, INT64_MIN, RELAXED);
}

/* The clock is cache-line separated inside; its storage is the caller's
 * malloc's, so the library's own allocation asks for a whole line. */
int monostamp_clock_new(const monostamp_options *options, monostamp_clock **out)
{
    if (out == NULL)
        return MONOSTAMP_EINVAL;
    *out = NULL;
    monostamp_clock *clock = monostamp__os_aligned_alloc(MONOSTAMP__CACHE_LINE, sizeof *clock);
    if (clock == NULL)
        return MONOSTAMP_ENOMEM;
    int rc = monostamp_clock_init(clock, options);
    if (rc != MONOSTAMP_OK) {
        monostamp__os_aligned_free(clock);
        return rc;
    }
    *out = clock;
    return MONOSTAMP_OK;
}

void monostamp_clock_free(monostamp_clock *clock)
{
    if (clock == NULL)
        return;
    monostamp_clock_destroy(clock);
    monostamp__os_aligned_free(clock);
}

monostamp_policy monostamp_clock_policy(const monostamp_clock *clock)
{
    return (monostamp_policy)atomic_load_explicit(&const_clock_of(clock)->policy, RELAXED);
}

int monostamp_clock_set_policy(monostamp_clock *clock, int policy)
{
    if (clock == NULL || monostamp_policy_name(policy) == NULL || clock_of(clock)->destroyed)
        return MONOSTAMP_EINVAL;
    atomic_store_explicit(&clock_of(clock)->policy, policy, RELAXED);
    return MONOSTAMP_OK;
}

monostamp_source monostamp_clock_source(const monostamp_clock *clock)
{
    return (monostamp_source)const_clock_of(clock)->source;
}

monostamp_zone *monostamp_clock_zone(const monostamp_clock *clock)
{
    return const_clock_of(clock)->zone;
}

int64_t monostamp_clock_max_lead_ns(const monostamp_clock *clock)
{
    return const_clock_of(clock)->max_lead_ns;
}

int monostamp_clock_set_waiter(monostamp_clock *storage, const monostamp_waiter *waiter)
{
    if (storage == NULL || clock_of(storage)->destroyed)
        return MONOSTAMP_EINVAL;
    /* Release: a nap that loads the pointer sees the waiter's fields. */
    atomic_store_explicit(&clock_of(storage)->waiter, waiter, memory_order_release);
    return MONOSTAMP_OK;
}

monostamp_on_lead monostamp_clock_on_lead(const monostamp_clock *clock)
{
    return (monostamp_on_lead)const_clock_of(clock)->on_lead;
}

int monostamp_clock_is_shared(const monostamp_clock *clock)
{
    return const_clock_of(clock)->watch != NULL;
}

int monostamp_manual_set(monostamp_clock *storage, int64_t ns)
{
    if (storage == NULL)
        return MONOSTAMP_EINVAL;
    monostamp__clock *clock = clock_of(storage);
    if (clock->destroyed)
        return MONOSTAMP_EINVAL;
    if (clock->source != MONOSTAMP_SOURCE_MANUAL)
        return MONOSTAMP_ENOTSUP;
    /* The reading it leaves is the reference a lead is measured against
     * if this steps back (clock.c), as the wall clock's would be. */
    int64_t left = atomic_exchange_explicit(&clock->manual_ns, ns, RELAXED);
    monostamp__state_raise(&clock->manual_anchor, left);
    return MONOSTAMP_OK;
}

int monostamp_manual_advance(monostamp_clock *storage, int64_t delta_ns)
{
    if (storage == NULL)
        return MONOSTAMP_EINVAL;
    monostamp__clock *clock = clock_of(storage);
    if (clock->destroyed)
        return MONOSTAMP_EINVAL;
    if (clock->source != MONOSTAMP_SOURCE_MANUAL)
        return MONOSTAMP_ENOTSUP;
    int64_t now = atomic_load_explicit(&clock->manual_ns, RELAXED);
    for (;;) {
        if ((delta_ns > 0 && now > INT64_MAX - delta_ns) ||
            (delta_ns < 0 && now < INT64_MIN - delta_ns))
            return MONOSTAMP_ERANGE;
        if (atomic_compare_exchange_weak_explicit(&clock->manual_ns, &now, now + delta_ns,
                                                  RELAXED, RELAXED)) {
            monostamp__state_raise(&clock->manual_anchor, now);
            return MONOSTAMP_OK;
        }
    }
}

void monostamp_clock_stats(const monostamp_clock *storage, monostamp_stats *out)
{
    /* The counters are atomics: reading them through a const clock
     * writes nothing. */
    monostamp__clock *clock = (monostamp__clock *)const_clock_of(storage);
    out->backward_steps = atomic_load_explicit(&clock->backward_steps, RELAXED);
    out->largest_backward_ns = atomic_load_explicit(&clock->largest_backward_ns, RELAXED);
    out->duplicates = atomic_load_explicit(&clock->duplicates, RELAXED);
    out->forced_increments = out->duplicates - atomic_load_explicit(&clock->holds, RELAXED);
    /* Each stamp bumps one counter: readings above the last stamp, or
     * duplicates. */
    out->readings = atomic_load_explicit(&clock->fresh_readings, RELAXED) + out->duplicates;
    /* See note_slow_path: the lead lives in the last slow stamp. */
    int64_t slow_stamp = atomic_load_explicit(&clock->slow_stamp, RELAXED);
    int64_t slow_reading = atomic_load_explicit(&clock->slow_reading, RELAXED);
    _Atomic int64_t *cell = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
    int64_t latest_run = slow_stamp == INT64_MIN ? 0 : clock_distance(slow_stamp, slow_reading);
    int64_t max_seen = atomic_load_explicit(&clock->max_lead_seen_ns, RELAXED);
    out->lead_ns = slow_stamp != INT64_MIN && atomic_load_explicit(cell, RELAXED) == slow_stamp
                       ? latest_run : 0;
    out->max_lead_ns = latest_run > max_seen ? latest_run : max_seen;
    out->lead_waits = atomic_load_explicit(&clock->lead_waits, RELAXED);
    out->lead_errors = atomic_load_explicit(&clock->lead_errors, RELAXED);
}

int monostamp_clock_info_get(int source, monostamp_clock_info *out)
{
    if (out == NULL || monostamp_source_name(source) == NULL)
        return MONOSTAMP_EINVAL;
    if (source == MONOSTAMP_SOURCE_MANUAL) {
        out->name = "manual";
        out->implementation = "set by the caller";
        out->resolution_ns = 1;
        out->adjustable = 1;
        out->monotonic = 0;
        return MONOSTAMP_OK;
    }
    return monostamp__os_clock_info(source, out);
}

int monostamp_source_read(int source, int64_t *out_ns)
{
    if (out_ns == NULL || monostamp_source_name(source) == NULL)
        return MONOSTAMP_EINVAL;
    if (source == MONOSTAMP_SOURCE_MANUAL)
        return MONOSTAMP_ENOTSUP;
    return monostamp__os_clock_read(source, out_ns);
}
