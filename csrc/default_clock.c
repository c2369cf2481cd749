/*
 * default_clock.c: the process-wide clock behind monostamp_default_now() and
 * Squeak's `Time clockPolicy:`.
 *
 * It is made when the library loads (a constructor, so before the program
 * can fork) and its "last value" lives in an anonymous MAP_SHARED page:
 * after fork() parent and children keep drawing from one sequence.  When
 * MONOSTAMP_SHARED names a file, that file's atomic is used instead, which
 * joins unrelated processes too.  A bad file makes the default clock fail
 * every call with the same error rather than quietly fall back to private
 * state, which would break the uniqueness the variable asked for.
 */
#include "config.h"

#include <stdlib.h>

#include "clock_layout.h"
#include "clock_share.h"
#include "os.h"
#include "state_file.h"

static monostamp_clock default_clock;
static monostamp__os_once_flag default_once = MONOSTAMP__OS_ONCE_INIT;
/* Serialises monostamp_default_share() calls. */
static monostamp__os_mutex share_lock = MONOSTAMP__OS_MUTEX_INIT;
/* The code that made the default clock unusable (its cause inside), or 0. */
static int default_rc;
/* Set (release) once default_clock is made, to skip the once call. */
static atomic_bool default_ready;

/* The default clock of a process on a state file adds what it counted
 * since its last checkpoint to the file's counts: at exit (a process that
 * ends with _exit() leaves them at its last checkpoint), and before a
 * fork(), so that a child, whose copy of the counters holds its parent's,
 * does not publish them a second time. */
static void publish_default(void)
{
    if (atomic_load_explicit(&default_ready, memory_order_acquire) &&
        default_rc == MONOSTAMP_OK && clock_of(&default_clock)->watch != NULL)
        (void)monostamp__clock_publish_shared(clock_of(&default_clock));
}

#if MONOSTAMP__HAVE_CONSTRUCTOR
static void publish_default_at_exit(void) MONOSTAMP__DESTRUCTOR;
static void publish_default_at_exit(void)
{
    publish_default();
}
#endif

static void init_default_clock(void)
{
    monostamp_options options;
    const char *shared = getenv("MONOSTAMP_SHARED");
    int rc;

    monostamp_options_init(&options);
    if (shared != NULL && shared[0] != '\0')
        options.shared_path = shared;
    rc = monostamp_clock_init(&default_clock, &options);
    if (rc == MONOSTAMP_OK && options.shared_path == NULL) {
        /* The page lives as long as the process: it is not the clock's
         * state file a shared clock follows (clock_share.c). */
        _Atomic int64_t *cell;
        void *page;
        size_t size;
        rc = monostamp__state_anonymous(&cell, &page, &size);
        if (rc == MONOSTAMP_OK)
            monostamp__clock_adopt(clock_of(&default_clock), cell); /* the anchor goes along */
        else
            monostamp_clock_destroy(&default_clock);
    }
    default_rc = rc;
    atomic_store_explicit(&default_ready, 1, memory_order_release);
    if (rc == MONOSTAMP_OK)
        monostamp__os_atfork(publish_default, NULL, NULL);
}

#if MONOSTAMP__HAVE_CONSTRUCTOR
/* Declared for -Wmissing-prototypes' sake; static, so never exported. */
static void make_default_clock_at_load(void) MONOSTAMP__CONSTRUCTOR;
static void make_default_clock_at_load(void)
{
    monostamp__os_once(&default_once, init_default_clock);
}
#endif


int monostamp_default_clock(monostamp_clock **out)
{
    if (out == NULL)
        return MONOSTAMP_EINVAL;
    if (!atomic_load_explicit(&default_ready, memory_order_acquire))
        monostamp__os_once(&default_once, init_default_clock);
    if (default_rc != MONOSTAMP_OK)
        return default_rc;
    *out = &default_clock;
    return MONOSTAMP_OK;
}

int monostamp_default_share(const char *path)
{
    monostamp_clock *storage;
    int rc;

    if (path == NULL || path[0] == '\0')
        return MONOSTAMP_EINVAL;
    if ((rc = monostamp_default_clock(&storage)) != MONOSTAMP_OK)
        return rc;
    /* The move itself is clock_share.c's: raised, swapped, raised again;
     * the anonymous page the clock leaves lives as long as the process. */
    monostamp__os_mutex_lock(&share_lock);
    rc = monostamp__clock_share(clock_of(storage), path, 0);
    monostamp__os_mutex_unlock(&share_lock);
    return rc;
}

/* The default clock made (at load, nearly always) and usable: a stamp is
 * then a tail call, with no frame of its own; otherwise the once call, or
 * the code that made the clock unusable, out of line. */
static inline int default_usable(void)
{
    return MONOSTAMP__LIKELY(atomic_load_explicit(&default_ready, memory_order_acquire) &&
                             default_rc == MONOSTAMP_OK);
}

static MONOSTAMP__NOINLINE int default_now_first(monostamp_stamp *out)
{
    monostamp_clock *clock;
    int rc = monostamp_default_clock(&clock);
    return rc != MONOSTAMP_OK ? rc : monostamp_now(clock, out);
}

static MONOSTAMP__NOINLINE int default_time_ns_first(int64_t *out_ns)
{
    monostamp_clock *clock;
    int rc = monostamp_default_clock(&clock);
    return rc != MONOSTAMP_OK ? rc : monostamp_time_ns(clock, out_ns);
}

int monostamp_default_now(monostamp_stamp *out)
{
    return default_usable() ? monostamp_now(&default_clock, out) : default_now_first(out);
}

int monostamp_default_time_ns(int64_t *out_ns)
{
    return default_usable() ? monostamp_time_ns(&default_clock, out_ns)
                            : default_time_ns_first(out_ns);
}

monostamp_policy monostamp_get_policy(void)
{
    monostamp_clock *clock;
    if (monostamp_default_clock(&clock) != MONOSTAMP_OK)
        return MONOSTAMP_DEFAULT_POLICY;
    return monostamp_clock_policy(clock);
}

int monostamp_set_policy(int policy)
{
    monostamp_clock *clock;
    if (monostamp_policy_name(policy) == NULL)
        return MONOSTAMP_EINVAL;
    int rc = monostamp_default_clock(&clock);
    return rc != MONOSTAMP_OK ? rc : monostamp_clock_set_policy(clock, policy);
}
