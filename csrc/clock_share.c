/*
 * clock_share.c: a clock's state on a state file, and following the file.
 *
 * A clock shares its sequence through one atomic in a mapped file.  If
 * someone deletes that file while processes have it mapped, the next
 * process to open the path creates a new file, and from then on two
 * sequences run side by side: the old processes keep the unlinked inode.
 * Every shared clock therefore looks, once a second of its own readings,
 * whether its path still names the file it mapped (a stat, compared by
 * device and inode).  When it does not, the clock moves onto what the path
 * names now, creating it if it is gone, and raises that file's sequence to
 * its own last stamp: the two sequences become one again.  A new file also
 * starts just above the wall clock (state_file.c), so a newcomer's first
 * stamps stay clear of stamps near the wall clock from processes that have
 * not looked yet.  docs/clock-core.md says what remains.
 *
 * Moving uses the protocol monostamp_default_share() was written for: the
 * new atomic is raised to the old one's value, the pointer is swapped with
 * a release store (stamps load it with acquire), and raised once more for
 * stamps that were under way on the old atomic.  The old mapping stays
 * until the clock is destroyed, since a thread may still hold a pointer
 * into it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

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
    char *path;
    int trust_group;
    void *mapping;                /* the file the clock is on now */
    size_t mapping_size;
    monostamp__os_file_id id;     /* and its identity */
    struct retired *retired;
    atomic_flag busy;             /* one recheck at a time */
};

/* Raises *cell to at least `floor`. */
static void raise_cell(_Atomic int64_t *cell, int64_t floor)
{
    int64_t seen = atomic_load_explicit(cell, RELAXED);
    while (seen < floor &&
           !atomic_compare_exchange_weak_explicit(cell, &seen, floor, RELAXED, RELAXED))
        ;
}

/* The reading after which to look again, saturated. */
static int64_t next_check(int64_t reading)
{
    return reading > INT64_MAX - MONOSTAMP__STATE_RECHECK_NS
               ? INT64_MAX - 1
               : reading + MONOSTAMP__STATE_RECHECK_NS;
}

int monostamp__clock_share(monostamp__clock *clock, const char *path, int trust_group)
{
    struct monostamp__state_watch *watch = clock->watch;
    struct retired *retired = NULL;
    _Atomic int64_t *cell, *old;
    void *mapping;
    size_t size;
    monostamp__os_file_id id;
    char *new_path = NULL;
    int rc;

    /* The path to follow from now on, unless it is the one followed. */
    if (watch == NULL || strcmp(watch->path, path) != 0) {
        size_t len = strlen(path);
        if ((new_path = malloc(len + 1)) == NULL)
            return MONOSTAMP_ENOMEM;
        memcpy(new_path, path, len + 1);
    }
    if (watch == NULL) {
        if ((watch = calloc(1, sizeof *watch)) == NULL) {
            free(new_path);
            return MONOSTAMP_ENOMEM;
        }
        atomic_flag_clear(&watch->busy);
    } else if ((retired = malloc(sizeof *retired)) == NULL) {
        free(new_path);
        return MONOSTAMP_ENOMEM;
    }
    rc = monostamp__state_file_open(path, trust_group, &cell, &mapping, &size, &id);
    if (rc != MONOSTAMP_OK) {
        if (clock->watch == NULL)
            free(watch);
        free(new_path);
        free(retired);
        return rc;
    }
    if (new_path != NULL) {
        free(watch->path);
        watch->path = new_path;
    }
    watch->trust_group = trust_group;
    old = atomic_load_explicit(&clock->last_ns, memory_order_acquire);
    raise_cell(cell, atomic_load_explicit(old, RELAXED));
    atomic_store_explicit(&clock->last_ns, cell, memory_order_release);
    /* Stamps that were under way on the old state are counted in too. */
    raise_cell(cell, atomic_load_explicit(old, RELAXED));

    if (retired != NULL) {
        retired->mapping = watch->mapping;
        retired->size = watch->mapping_size;
        retired->next = watch->retired;
        watch->retired = retired;
    }
    watch->mapping = mapping;
    watch->mapping_size = size;
    watch->id = id;
    if (clock->watch == NULL) {
        /* Look again a second of the clock's own readings from now. */
        int64_t reading = 0;
        if (clock->source == MONOSTAMP_SOURCE_MANUAL)
            reading = atomic_load_explicit(&clock->manual_ns, RELAXED);
        else if (monostamp__os_clock_read(clock->source, &reading) != MONOSTAMP_OK)
            reading = INT64_MAX - 1; /* an unreadable source stamps nothing anyway */
        clock->watch = watch;
        atomic_store_explicit(&clock->recheck_at_ns, next_check(reading), RELAXED);
    }
    return MONOSTAMP_OK;
}

static int same_file(const monostamp__os_file_id *a, const monostamp__os_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

void monostamp__clock_recheck(monostamp__clock *clock, int64_t reading)
{
    struct monostamp__state_watch *watch = clock->watch;
    monostamp__os_file_id now;

    if (watch == NULL || atomic_flag_test_and_set_explicit(&watch->busy, memory_order_acquire))
        return;
    atomic_store_explicit(&clock->recheck_at_ns, next_check(reading), RELAXED);
    int rc = monostamp__os_file_id_get(watch->path, &now);
    if (rc != MONOSTAMP_OK || !same_file(&now, &watch->id)) {
        /* Deleted or replaced: join what the path names now.  If that
         * fails (a file another user planted, say), the clock stays on
         * the state it has, and looks again a second later. */
        (void)monostamp__clock_share(clock, watch->path, watch->trust_group);
    }
    atomic_flag_clear_explicit(&watch->busy, memory_order_release);
}

void monostamp__clock_unshare(monostamp__clock *clock)
{
    struct monostamp__state_watch *watch = clock->watch;
    if (watch == NULL)
        return;
    monostamp__state_close(watch->mapping, watch->mapping_size);
    while (watch->retired != NULL) {
        struct retired *r = watch->retired;
        watch->retired = r->next;
        monostamp__state_close(r->mapping, r->size);
        free(r);
    }
    free(watch->path);
    free(watch);
    clock->watch = NULL;
    atomic_store_explicit(&clock->recheck_at_ns, INT64_MAX, RELAXED);
}
