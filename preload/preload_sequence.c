/*
 * preload_sequence.c: the one sequence libmonostamp_preload.so answers from.
 *
 * The state is the core's: MONOSTAMP_SHARED's state file (opened, checked
 * and created by csrc/state_file.c), else an anonymous page fork() children
 * share.  The answering path is this file's own, leaner than a core clock
 * and safe where libc's clock is called from, a signal handler included:
 * one reading, one compare-and-swap under the nanosecond-increment rule, no
 * lock, no allocation, no stdio.  It keeps the core's protocol for a file
 * deleted or replaced under it (docs/clock-core.md): it looks every 5 ms of
 * readings whether the name still names the mapped file, and it follows a
 * state another process retired; both with system calls alone, and two
 * threads that follow at once both map, one pointer swap wins, the other
 * unmaps.  What it cannot use, it leaves: the answers are then the real
 * clock, with one line on stderr.
 */
#define _GNU_SOURCE 1

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "os.h"
#include "state_file.h"
#include "preload.h"

#define RELAXED memory_order_relaxed
#define RETIRED MONOSTAMP__STATE_RETIRED
/* As a core clock looks (csrc/clock_share.h): every 5 ms of readings. */
#define RECHECK_NS INT64_C(5000000)

/* Stamps made before the constructor joined the real state. */
static _Atomic int64_t early_state = INT64_MIN;
/* The state stamps are drawn from; NULL: none usable, answer the reading. */
static _Atomic(_Atomic int64_t *) state = &early_state;
/* A shared file's place and the identity of the file mapped (a follower
 * updates them while others read, so each is atomic on its own). */
static monostamp__os_place *place;
static _Atomic uint64_t mapped_dev, mapped_ino;
/* The reading at which to look at the place again; INT64_MAX: never. */
static _Atomic int64_t recheck_at_ns = INT64_MAX;
static atomic_flag warned = ATOMIC_FLAG_INIT;

static void raise_state(_Atomic int64_t *cell, int64_t floor)
{
    int64_t seen = atomic_load_explicit(cell, RELAXED);
    while (seen < floor && !atomic_compare_exchange_weak_explicit(cell, &seen, floor, RELAXED, RELAXED))
        ;
}

/* ---------------------------------------------------------- one line */

static size_t append(char *buf, size_t at, size_t size, const char *text)
{
    while (*text != '\0' && at + 1 < size)
        buf[at++] = *text++;
    return at;
}

void monostamp_preload__warn_once(const char *what, int code)
{
    /* No stdio, no allocation: this may run in a signal handler. */
    char line[512], digits[16];
    size_t n = 0;
    int err = monostamp_os_errno(code);
    if (atomic_flag_test_and_set(&warned))
        return;
    n = append(line, n, sizeof line, "monostamp_preload: ");
    n = append(line, n, sizeof line, what);
    n = append(line, n, sizeof line, ": ");
    if (err != 0) {
        /* The errno's name: static text, where strerror may translate
         * (and so lock and allocate). */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
        const char *name = strerrorname_np(err);
        n = append(line, n, sizeof line, name != NULL ? name : "an OS error");
#else
        n = append(line, n, sizeof line, "an OS error");
#endif
    } else {
        /* monostamp_strerror's named codes are static text. */
        n = append(line, n, sizeof line, monostamp_strerror(code));
    }
    int d = 0, v = code < 0 ? -code : code;
    do
        digits[d++] = (char)('0' + v % 10);
    while ((v /= 10) != 0 && d < 10);
    n = append(line, n, sizeof line, " (code -");
    while (d > 0 && n + 1 < sizeof line)
        line[n++] = digits[--d];
    n = append(line, n, sizeof line, "); answering with the real clock\n");
    ssize_t unused = write(STDERR_FILENO, line, n);
    (void)unused;
}

/* ------------------------------------------------- following the file */

static int is_mapped(const monostamp__os_file_id *id)
{
    return atomic_load_explicit(&mapped_dev, RELAXED) == id->dev &&
           atomic_load_explicit(&mapped_ino, RELAXED) == id->ino;
}

/* Moves the answers from `old` to what the place names now, as a core
 * clock does (csrc/clock_share.c's follow): the new file raised to the old
 * state's final value, the old one retired in the same loop.  0, or the
 * code that keeps it from being used. */
static int follow(_Atomic int64_t *old)
{
    _Atomic int64_t *cell;
    void *mapping;
    size_t size;
    monostamp__os_file_id id;
    int rc = monostamp__state_file_open(place, 0, MONOSTAMP_DEFAULT_MAX_LEAD_NS, &cell, &mapping,
                                        &size, &id);
    if (rc != MONOSTAMP_OK)
        return rc;
    if (is_mapped(&id)) {
        /* The name names the state we are on.  If that is retired (renamed
         * back into place), no stamp can follow it. */
        monostamp__state_close(mapping, size);
        if (atomic_load_explicit(&state, memory_order_acquire) != old)
            return MONOSTAMP_OK; /* another thread has moved on already */
        return atomic_load_explicit(old, RELAXED) == RETIRED ? MONOSTAMP_ERANGE : MONOSTAMP_OK;
    }
    int64_t final = atomic_load_explicit(old, memory_order_acquire);
    while (final != RETIRED) {
        raise_state(cell, final);
        if (atomic_compare_exchange_weak_explicit(old, &final, RETIRED, memory_order_acq_rel,
                                                  memory_order_acquire))
            break;
    }
    _Atomic int64_t *expected = old;
    if (atomic_compare_exchange_strong_explicit(&state, &expected, cell, memory_order_release,
                                                RELAXED)) {
        atomic_store_explicit(&mapped_dev, id.dev, RELAXED);
        atomic_store_explicit(&mapped_ino, id.ino, RELAXED);
        /* The old mapping stays: another thread may still hold it. */
    } else {
        monostamp__state_close(mapping, size); /* another thread moved first */
    }
    return MONOSTAMP_OK;
}

/* Gives up on the state: from now on the answers are the real clock. */
static void leave(int code)
{
    atomic_store_explicit(&state, NULL, memory_order_release);
    monostamp_preload__warn_once("the state file cannot be used", code);
}

/* The reading passed the look-again point: whoever moves that point looks
 * (one fstatat); the others go on. */
static void recheck(int64_t reading, int64_t due)
{
    int64_t next = reading > INT64_MAX - RECHECK_NS ? INT64_MAX - 1 : reading + RECHECK_NS;
    monostamp__os_file_id id;
    if (!atomic_compare_exchange_strong_explicit(&recheck_at_ns, &due, next, RELAXED, RELAXED))
        return;
    if (monostamp__os_place_id(place, &id) == MONOSTAMP_OK && is_mapped(&id))
        return;
    _Atomic int64_t *cell = atomic_load_explicit(&state, memory_order_acquire);
    if (cell != NULL) {
        /* Deleted or replaced.  A file that cannot be used (planted by
         * another user, say) is looked at again next time. */
        (void)follow(cell);
    }
}

/* -------------------------------------------------------- the stamp */

static inline int64_t floor_us(int64_t ns)
{
    int64_t r = ns % 1000;
    return r < 0 ? ns - r - 1000 : ns - r;
}

int64_t monostamp_preload__stamp(int64_t reading, int whole_us)
{
    int64_t due = atomic_load_explicit(&recheck_at_ns, RELAXED);
    if (MONOSTAMP__UNLIKELY(reading >= due))
        recheck(reading, due);
    for (;;) {
        _Atomic int64_t *cell = atomic_load_explicit(&state, memory_order_acquire);
        if (MONOSTAMP__UNLIKELY(cell == NULL))
            return whole_us ? floor_us(reading) : reading;
        int64_t last = atomic_load_explicit(cell, RELAXED);
        for (;;) {
            /* RETIRED is INT64_MAX; a state within 2 µs of it is one no
             * stamp can follow either. */
            if (MONOSTAMP__UNLIKELY(last >= INT64_MAX - 2000))
                break;
            int64_t stamp;
            if (whole_us) {
                int64_t us = floor_us(reading);
                stamp = us > last ? us : floor_us(last) + 1000;
            } else {
                stamp = reading > last ? reading : last + 1;
            }
            if (atomic_compare_exchange_weak_explicit(cell, &last, stamp, RELAXED, RELAXED))
                return stamp;
        }
        if (last == RETIRED && cell != &early_state) {
            int rc = follow(cell);
            if (rc != MONOSTAMP_OK)
                leave(rc);
        } else {
            leave(MONOSTAMP_ERANGE);
        }
    }
}

/* -------------------------------------------------------- joining */

void monostamp_preload__join(void)
{
    const char *path = getenv("MONOSTAMP_SHARED");
    _Atomic int64_t *cell;
    void *mapping;
    size_t size;
    monostamp__os_file_id id;
    int rc;

    if (path != NULL && path[0] != '\0') {
        rc = monostamp__os_place_pin(path, &place);
        if (rc == MONOSTAMP_OK) {
            rc = monostamp__state_file_open(place, 0, MONOSTAMP_DEFAULT_MAX_LEAD_NS, &cell,
                                            &mapping, &size, &id);
            if (rc != MONOSTAMP_OK) {
                monostamp__os_place_free(place);
                place = NULL;
            }
        }
        if (rc != MONOSTAMP_OK) {
            /* The variable asked for one sequence with other processes; a
             * private one would break that quietly, so: the real clock. */
            char what[320] = "MONOSTAMP_SHARED=";
            strncat(what, path, sizeof what - strlen(what) - 1);
            atomic_store_explicit(&state, NULL, memory_order_release);
            monostamp_preload__warn_once(what, rc);
            return;
        }
        atomic_store_explicit(&mapped_dev, id.dev, RELAXED);
        atomic_store_explicit(&mapped_ino, id.ino, RELAXED);
    } else if ((rc = monostamp__state_anonymous(&cell, &mapping, &size)) != MONOSTAMP_OK) {
        leave(rc);
        return;
    }
    /* Above whatever was handed out before now, then the switch, then
     * again for stamps that were under way on the early state. */
    raise_state(cell, atomic_load_explicit(&early_state, RELAXED));
    atomic_store_explicit(&state, cell, memory_order_release);
    raise_state(cell, atomic_load_explicit(&early_state, RELAXED));
    if (place != NULL) {
        struct timespec ts;
        if (monostamp_preload__next_clock_gettime(CLOCK_REALTIME, &ts) == 0)
            atomic_store_explicit(&recheck_at_ns,
                                  (int64_t)ts.tv_sec * MONOSTAMP__NS_PER_S + ts.tv_nsec + RECHECK_NS,
                                  RELAXED);
    }
}
