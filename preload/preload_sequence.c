/*
 * preload_sequence.c: the one sequence libmonostamp_preload.so answers from.
 *
 * The answers come from a core clock (csrc/clock.c), the same code every
 * monostamp clock stamps with, so every rule of the core holds for native
 * readers too: the state file's one lead bound (a reader faster than its
 * grain is made to wait, not run ahead of the others on the file), the
 * reference of real time that never steps back, following a file deleted,
 * replaced or retired under it and raising the new one, re-pinning a
 * replaced directory, raising a state that went backwards.
 *
 * The clock lives in static storage, usable before any constructor has
 * run; the preload's constructor moves it onto MONOSTAMP_SHARED's file
 * (or an anonymous page fork() shares), raised above whatever was handed
 * out before.  It reads the wall clock through the next clock_gettime
 * (this library's core is built with clock_gettime renamed to that), so a
 * libfaketime after it in LD_PRELOAD still moves it.
 *
 * Where libc's clock is called from (a signal handler, another library's
 * constructor) the draw is a reading and a compare-and-swap: no lock, no
 * allocation.  The rare path (a checkpoint every 5 ms of readings, a move
 * to a replaced file) uses system calls alone, and holds the clock's watch
 * with the thread's signals blocked, so a handler never waits on the
 * thread it interrupted.  The lead bound's wait is a nap on the monotonic
 * clock.  What the clock cannot use, it leaves: the answers are then the
 * real clock, with one line on stderr.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "clock_layout.h"
#include "clock_share.h"
#include "os.h"
#include "state_file.h"
#include "preload.h"

/* The preload's bound, the patch's: no reader of libc's clock expects a
 * value more than a few ms ahead of real time, nor a wait longer. */
#define PRELOAD_MAX_LEAD_NS INT64_C(5000000)

_Alignas(monostamp_clock) monostamp__clock monostamp_preload__sequence = MONOSTAMP__CLOCK_STATIC(
    monostamp_preload__sequence, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
    MONOSTAMP_SOURCE_REALTIME, PRELOAD_MAX_LEAD_NS);
/* Set once the clock cannot be used: the answers are the reading. */
atomic_bool monostamp_preload__left;
static atomic_flag warned = ATOMIC_FLAG_INIT;

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

/* -------------------------------------------------------- the stamp */

static inline int64_t floor_us(int64_t ns)
{
    int64_t r = ns % 1000;
    return r < 0 ? ns - r - 1000 : ns - r;
}

/* The answer once the clock is left: the next clock_gettime's reading;
 * -1 with errno set as it left it, or EOVERFLOW for an instant that ns
 * since the epoch cannot hold (before 1970 or past 2262). */
static int real_clock(int whole_us, int64_t *out_ns)
{
    struct timespec ts;
    if (monostamp_preload__next_clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return -1;
    if (ts.tv_sec < 0 || ts.tv_sec > INT64_MAX / MONOSTAMP__NS_PER_S - 1) {
        errno = EOVERFLOW;
        return -1;
    }
    int64_t ns = (int64_t)ts.tv_sec * MONOSTAMP__NS_PER_S + ts.tv_nsec;
    *out_ns = whole_us ? floor_us(ns) : ns;
    return 0;
}

monostamp__stamped monostamp_preload__stamp_again(int whole_us, int rc)
{
    monostamp__stamped s = {0, 0};
    for (;;) {
        if (atomic_load_explicit(&monostamp_preload__left, memory_order_relaxed)) {
            s.rc = real_clock(whole_us, &s.ns);
            return s;
        }
        /* Waited its limit for a lead another reader of the file made:
         * real time has moved on meanwhile, so it draws again (a libc
         * clock has no error to give). */
        if (rc != MONOSTAMP_ELEAD) {
            /* The reading itself failed, or is out of range: libc's
             * answer, its error included, is the one to give. */
            if ((s.rc = real_clock(whole_us, &s.ns)) != 0)
                return s;
            /* The state cannot be used (a file it cannot follow, the end
             * of the range): the real clock, said once. */
            atomic_store_explicit(&monostamp_preload__left, 1, memory_order_relaxed);
            monostamp_preload__warn_once("the state file cannot be used", rc);
            s.rc = real_clock(whole_us, &s.ns);
            return s;
        }
        s = whole_us ? monostamp__clock_time_us(&monostamp_preload__sequence)
                     : monostamp__clock_time_ns(&monostamp_preload__sequence);
        if (s.rc == MONOSTAMP_OK)
            return s;
        rc = s.rc;
    }
}

/* -------------------------------------------------------- joining */

/* At exit, what the sequence counted since its last checkpoint goes into
 * its state file's counts, as the library's default clock does
 * (clock_counts.c); a process that ends with _exit() leaves them at its
 * last checkpoint.  And before a fork(): a child's copy of the counters
 * holds its parent's, which must not be published twice. */
static void publish_counts(void)
{
    if (monostamp_preload__sequence.watch != NULL)
        (void)monostamp__clock_publish_shared(&monostamp_preload__sequence);
}

static void publish_at_exit(void) __attribute__((destructor));
static void publish_at_exit(void)
{
    publish_counts();
}

void monostamp_preload__join(void)
{
    const char *path = getenv("MONOSTAMP_SHARED");
    int rc;

    if (path != NULL && path[0] != '\0') {
        rc = monostamp__clock_share(&monostamp_preload__sequence, path, 0);
        if (rc == MONOSTAMP_OK)
            monostamp__os_atfork(publish_counts, NULL, NULL);
        if (rc != MONOSTAMP_OK) {
            /* The variable asked for one sequence with other processes; a
             * private one would break that quietly, so: the real clock. */
            char what[320] = "MONOSTAMP_SHARED=";
            strncat(what, path, sizeof what - strlen(what) - 1);
            atomic_store_explicit(&monostamp_preload__left, 1, memory_order_relaxed);
            monostamp_preload__warn_once(what, rc);
        }
        return;
    }
    _Atomic int64_t *cell;
    void *page;
    size_t size;
    if ((rc = monostamp__state_anonymous(&cell, &page, &size)) != MONOSTAMP_OK) {
        /* Unshared, the private state still keeps this process's sequence;
         * only fork() children would start their own. */
        monostamp_preload__warn_once("no memory to share with fork() children", rc);
        return;
    }
    monostamp__clock_adopt(&monostamp_preload__sequence, cell);
}
