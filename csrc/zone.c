/* zone.c: zone objects and the offset engine's slow path.
 *
 * One lock (`engine_lock`) serialises every window publication and guards
 * the local zone's source state; named zones compute their windows without
 * it (their data is immutable) and publish only if trylock succeeds, so
 * they never wait.  An atfork handler takes the lock around fork(), so a
 * child never inherits it held by a thread that does not exist there.
 * See docs/offset-engine.md. */
#include "config.h"

#include <string.h>

#include "calendar.h"
#include "os.h"
#include "zone.h"
#include "zone_probe.h"
#include "zone_source.h"

#define DEFAULT_RECHECK_NS MONOSTAMP__NS_PER_S

static monostamp__os_mutex engine_lock = MONOSTAMP__OS_MUTEX_INIT;
static monostamp__os_once_flag atfork_once = MONOSTAMP__OS_ONCE_INIT;
static _Atomic int64_t recheck_ns = DEFAULT_RECHECK_NS;

/* The process's local zone: a singleton that close() leaves alone.  Its
 * window starts empty (from > until), so the first offset loads it. */
static monostamp_zone local_zone = {
    .seq = 0,
    .offset_s = 0,
    .from_ns = INT64_MAX,
    .until_ns = INT64_MIN,
    .fold_until_ns = MONOSTAMP__FOLD_UNKNOWN,
    .is_local = 1,
    .probing = 0,
    .data = NULL,
    .name = "",
};

/* The local zone's source, guarded by engine_lock. */
static struct {
    int loaded;                /* a source has been read */
    int force;                 /* monostamp_zone_changed() asked for a re-read */
    int64_t checked_at_ns;     /* the stamp at which the source was last checked */
    monostamp__zone_key key;   /* what it was read from */
    monostamp__zone_key scratch;
} local;

static void lock_before_fork(void) { monostamp__os_mutex_lock(&engine_lock); }
static void unlock_after_fork(void) { monostamp__os_mutex_unlock(&engine_lock); }

static void register_atfork(void)
{
    /* If registration fails (ENOMEM), fork safety is lost but nothing else;
     * the engine has no way to report it and must not abort. */
    monostamp__os_atfork(lock_before_fork, unlock_after_fork, unlock_after_fork);
}

/* Seqlock write; the caller holds engine_lock, so writers never race. */
static void publish(monostamp_zone *z, int32_t off, int64_t from_ns, int64_t until_ns,
                    int64_t fold_until_ns)
{
    uint32_t s = atomic_load_explicit(&z->seq, memory_order_relaxed);
    atomic_store_explicit(&z->seq, s + 1, memory_order_relaxed);
    /* Release stores: a reader whose acquire load sees any new field value
     * also sees the odd seq stored before it, and retries. */
    atomic_store_explicit(&z->from_ns, from_ns, memory_order_release);
    atomic_store_explicit(&z->until_ns, until_ns, memory_order_release);
    atomic_store_explicit(&z->offset_s, off, memory_order_release);
    atomic_store_explicit(&z->fold_until_ns, fold_until_ns, memory_order_release);
    atomic_store_explicit(&z->seq, s + 2, memory_order_release);
}

static void invalidate(monostamp_zone *z)
{
    publish(z, 0, INT64_MAX, INT64_MIN, MONOSTAMP__FOLD_UNKNOWN);
}

static int64_t add_sat(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

/* Re-reads the local source if it changed; with engine_lock held. */
static void local_refresh(int64_t utc_ns)
{
    monostamp__zone_key *k = &local.scratch;
    monostamp__tzdata *data = NULL;
    monostamp__zone_local_key(k);
    if (!local.loaded || local.force || !monostamp__zone_key_equal(k, &local.key)) {
        int rc = monostamp__zone_load_local(k, &data);
        /* XXX: on ENOMEM we probe too; a wrong offset is worse than a slow one. */
        monostamp__tzdata_free(local_zone.data);
        local_zone.data = rc == 0 ? data : NULL;
        local_zone.probing = rc != 0;
        if (local_zone.probing) monostamp__zone_probe_reset();
        local.key = *k;
        local.loaded = 1;
        local.force = 0;
    }
    local.checked_at_ns = utc_ns;
}

/* Where the fold ends (in ns) for a window [from_s, ...) of offset `off`
 * that `data` gave, or MONOSTAMP__FOLD_UNKNOWN when not `wanted`: the fold
 * costs a second table lookup, which only callers of monostamp_zone_fold
 * pay. */
static int64_t tzdata_fold_until_ns(const monostamp__tzdata *data, int64_t from_s, int32_t off,
                                    int wanted)
{
    int64_t until_s;
    if (!wanted) return MONOSTAMP__FOLD_UNKNOWN;
    until_s = monostamp__tzdata_fold_until(data, from_s, off);
    return until_s == INT64_MIN ? INT64_MIN : monostamp__s_to_ns_sat(until_s);
}

/* The local zone's offset at utc_ns, and where the fold ends if
 * `fold_until_ns` is not NULL; publishes the window. */
static int local_offset(int64_t utc_ns, int32_t *out, int64_t *fold_until_ns)
{
    int64_t interval = atomic_load_explicit(&recheck_ns, memory_order_relaxed);
    int64_t t_s = monostamp__floor_div(utc_ns, MONOSTAMP__NS_PER_S);
    int64_t from_s, until_s, from_ns, until_ns, deadline, fold_until = MONOSTAMP__FOLD_UNKNOWN;
    int32_t off;

    monostamp__os_mutex_lock(&engine_lock);
    /* Re-check when asked, when the stamp passed the deadline, or when it
     * went back before the last check (then the deadline no longer bounds
     * the time since it). */
    if (!local.loaded || local.force || utc_ns < local.checked_at_ns ||
        utc_ns >= add_sat(local.checked_at_ns, interval))
        local_refresh(utc_ns);
    deadline = add_sat(local.checked_at_ns, interval);
    if (local_zone.probing) {
        int64_t limit_s = monostamp__floor_div(deadline, MONOSTAMP__NS_PER_S) + 1;
        monostamp__zone_probe_window(t_s, limit_s, &off, &from_s, &until_s);
        if (fold_until_ns != NULL) {
            fold_until = monostamp__zone_probe_fold_until(t_s, off);
            if (fold_until != INT64_MIN) fold_until = monostamp__s_to_ns_sat(fold_until);
        }
    } else {
        monostamp__tzdata_window(local_zone.data, t_s, &off, &from_s, &until_s);
        fold_until = tzdata_fold_until_ns(local_zone.data, from_s, off, fold_until_ns != NULL);
    }
    from_ns = monostamp__s_to_ns_sat(from_s);
    until_ns = monostamp__s_to_ns_sat(until_s);
    if (from_ns < local.checked_at_ns) from_ns = local.checked_at_ns;
    if (until_ns > deadline) until_ns = deadline;
    publish(&local_zone, off, from_ns, until_ns, fold_until);
    monostamp__os_mutex_unlock(&engine_lock);
    *out = off;
    if (fold_until_ns != NULL) *fold_until_ns = fold_until;
    return 0;
}

/* The slow path of both queries: the offset at utc_ns and, if
 * `fold_until_ns` is not NULL, where the fold ends; publishes the window. */
static int offset_slow(monostamp_zone *zone, int64_t utc_ns, int32_t *out_offset_s,
                       int64_t *fold_until_ns)
{
    int64_t t_s, from_s, until_s, fold_until;
    int32_t off;
    if (zone->is_local) return local_offset(utc_ns, out_offset_s, fold_until_ns);
    t_s = monostamp__floor_div(utc_ns, MONOSTAMP__NS_PER_S);
    monostamp__tzdata_window(zone->data, t_s, &off, &from_s, &until_s);
    fold_until = tzdata_fold_until_ns(zone->data, from_s, off, fold_until_ns != NULL);
    /* Another thread publishing (or a re-check under way) is no reason to
     * wait: this answer is right either way, the next call publishes. */
    if (monostamp__os_mutex_trylock(&engine_lock)) {
        publish(zone, off, monostamp__s_to_ns_sat(from_s), monostamp__s_to_ns_sat(until_s),
                fold_until);
        monostamp__os_mutex_unlock(&engine_lock);
    }
    *out_offset_s = off;
    if (fold_until_ns != NULL) *fold_until_ns = fold_until;
    return 0;
}

int monostamp__zone_offset_slow(monostamp_zone *zone, int64_t utc_ns,
                                int32_t *out_offset_s)
{
    if (zone == NULL || out_offset_s == NULL) return MONOSTAMP_EINVAL;
    return offset_slow(zone, utc_ns, out_offset_s, NULL);
}

int monostamp_zone_open(const char *name, monostamp_zone **out)
{
    monostamp_zone *z;
    monostamp__tzdata *data = NULL;
    size_t n;
    int rc;
    if (out == NULL) return MONOSTAMP_EINVAL;
    *out = NULL;
    monostamp__os_once(&atfork_once, register_atfork);
    if (name == NULL || name[0] == '\0') {
        *out = &local_zone;
        return MONOSTAMP_OK;
    }
    n = strnlen(name, MONOSTAMP_ZONE_NAME_MAX + 1);
    if (n > MONOSTAMP_ZONE_NAME_MAX) return MONOSTAMP_EINVAL;
    if ((rc = monostamp__zone_load_name(name, &data, NULL)) != 0) return rc;
    /* 64-byte alignment keeps the published window on one cache line. */
    z = monostamp__os_aligned_alloc(_Alignof(monostamp_zone), sizeof *z);
    if (z == NULL) {
        monostamp__tzdata_free(data);
        return MONOSTAMP_ENOMEM;
    }
    memset(z, 0, sizeof *z);
    atomic_init(&z->seq, 0);
    atomic_init(&z->offset_s, 0);
    atomic_init(&z->from_ns, INT64_MAX);
    atomic_init(&z->until_ns, INT64_MIN);
    atomic_init(&z->fold_until_ns, MONOSTAMP__FOLD_UNKNOWN);
    z->is_local = 0;
    z->data = data;
    /* 'utc' is named as 'UTC' is: one spelling in every repr. */
    if (monostamp__zone_is_utc(name))
        memcpy(z->name, "UTC", sizeof "UTC");
    else
        memcpy(z->name, name, n + 1);
    *out = z;
    return MONOSTAMP_OK;
}

void monostamp_zone_close(monostamp_zone *zone)
{
    if (zone == NULL || zone->is_local) return;
    monostamp__tzdata_free(zone->data);
    monostamp__os_aligned_free(zone);
}

const char *monostamp_zone_name(const monostamp_zone *zone)
{
    return zone == NULL ? "" : zone->name;
}

int monostamp_zone_offset(monostamp_zone *zone, int64_t utc_ns,
                          int32_t *out_offset_s)
{
    if (zone == NULL || out_offset_s == NULL) return MONOSTAMP_EINVAL;
    return monostamp__zone_offset_fast(zone, utc_ns, out_offset_s);
}

int monostamp_zone_fold(monostamp_zone *zone, int64_t utc_ns, int *out_fold)
{
    uint32_t s0, s1;
    int64_t from, until, fold_until;
    int32_t off;
    if (zone == NULL || out_fold == NULL) return MONOSTAMP_EINVAL;
    /* The offset's seqlock read (zone.h), with the fold's end beside it. */
    s0 = atomic_load_explicit(&zone->seq, memory_order_acquire);
    from = atomic_load_explicit(&zone->from_ns, memory_order_acquire);
    until = atomic_load_explicit(&zone->until_ns, memory_order_acquire);
    fold_until = atomic_load_explicit(&zone->fold_until_ns, memory_order_acquire);
    s1 = atomic_load_explicit(&zone->seq, memory_order_relaxed);
    if (!(s0 == s1 && (s0 & 1u) == 0 && utc_ns >= from && utc_ns < until &&
          fold_until != MONOSTAMP__FOLD_UNKNOWN))
        offset_slow(zone, utc_ns, &off, &fold_until);
    /* Changes fall on whole seconds: comparing ns is comparing seconds. */
    *out_fold = utc_ns < fold_until;
    return MONOSTAMP_OK;
}

void monostamp_zone_changed(void)
{
    monostamp__os_mutex_lock(&engine_lock);
    local.force = 1;
    invalidate(&local_zone);
    monostamp__os_mutex_unlock(&engine_lock);
}

int monostamp_zone_set_recheck_ns(int64_t interval_ns)
{
    if (interval_ns <= 0) return MONOSTAMP_EINVAL;
    monostamp__os_mutex_lock(&engine_lock);
    atomic_store_explicit(&recheck_ns, interval_ns, memory_order_relaxed);
    /* The published window may reach past the new, nearer deadline. */
    invalidate(&local_zone);
    monostamp__os_mutex_unlock(&engine_lock);
    return MONOSTAMP_OK;
}
