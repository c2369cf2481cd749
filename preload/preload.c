/*
 * preload.c: the calls libmonostamp_preload.so answers (docs/preload.md).
 *
 * Loaded first in LD_PRELOAD, these definitions stand in front of libc's
 * (and of a libfaketime listed after this library, which they wrap): the
 * wall-clock calls answer with stamps the core's own clock draws on one
 * sequence, shared by every process on MONOSTAMP_SHARED's state file, each
 * value strictly above every earlier one (whole seconds for time(), which
 * may repeat).  Every other clock id goes to the next clock_gettime
 * untouched, so timeouts and durations do not change.
 *
 * Each call keeps libc's contract for every argument, as glibc answers on
 * the same machine (tests/preload/test_contract.c compares the two): the
 * same return value, errno untouched on success, the same fields written,
 * and a fault where libc's own call faults.  glibc's vDSO path writes
 * through the caller's pointer without a check, so a NULL or wild timespec
 * for a wall clock faults there, where the system call would answer EFAULT.
 * A NULL one is handed to the next definition, whose own code then does
 * what it does without this library (a store through NULL here would be
 * undefined behaviour); a wild one faults on the store, as in libc.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))
#define NS_PER_S INT64_C(1000000000)

/* The grain of clock_gettime's and timespec_get's answers: nanoseconds, or
 * whole microseconds (MONOSTAMP_GRAIN=us) for readers that truncate to µs
 * (CPython's datetime.now()), so that they too see distinct values.  Read
 * once by the constructor; until then (another library's constructor) ns.
 * Relaxed: one word written once, as preload_next.c's pointers are. */
static _Atomic int whole_us_grain;

/* Stamps are at or after 1970 (the core refuses earlier readings here),
 * so one division gives both fields. */
static inline struct timespec timespec_of(int64_t ns)
{
    struct timespec ts;
    int64_t s = ns / NS_PER_S;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)(ns - s * NS_PER_S);
    return ts;
}

/* glibc's headers declare the clock calls' pointers nonnull, so the
 * compiler would drop a test for NULL as dead: the empty asm makes the
 * pointer one it knows nothing of. */
static inline int is_null(const void *p)
{
    __asm__("" : "+r"(p));
    return p == NULL;
}

/* One stamp at the process's grain: `rc` 0, or -1 with errno set.  errno
 * stays as the caller had it when the draw succeeds, as libc's clock calls
 * leave it: the core's rare paths (a nap under the lead bound, a look at
 * the state file) restore it themselves (csrc/config.h), so the common
 * answer never touches it. */
static inline monostamp__stamped draw(int whole_us)
{
    return monostamp_preload__stamp(whole_us);
}

EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
    if ((id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE) || is_null(ts))
        return monostamp_preload__next_clock_gettime(id, ts);
    monostamp__stamped s = draw(atomic_load_explicit(&whole_us_grain, memory_order_relaxed));
    if (s.rc != 0)
        return -1;
    *ts = timespec_of(s.ns);
    return 0;
}

/* C11: the base on success, 0 on failure, the timespec untouched for a base
 * the library does not know (glibc's answer for every base but TIME_UTC,
 * and the next definition's for the bases a newer libc adds); a NULL one
 * is the next definition's to answer, as above. */
EXPORT int timespec_get(struct timespec *ts, int base)
{
    if (base != TIME_UTC || is_null(ts)) {
        monostamp_preload__timespec_get_fn next = monostamp_preload__next_timespec_get();
        return next != NULL ? next(ts, base) : 0;
    }
    monostamp__stamped s = draw(atomic_load_explicit(&whole_us_grain, memory_order_relaxed));
    if (s.rc != 0)
        return 0;
    *ts = timespec_of(s.ns);
    return base;
}

/* The zone argument of gettimeofday is obsolete, but libc still fills it
 * (from the kernel's, normally zero), and faults on a bad pointer; so it is
 * handed to the next gettimeofday, which fills it as it would without this
 * library.  With a scratch timeval, not NULL: libfaketime's gettimeofday
 * refuses a NULL one and would leave the zone unwritten.  Until the
 * constructor has found the next definition, the raw system call. */
typedef int (*gettimeofday_fn)(struct timeval *, void *);

static int raw_gettimeofday(struct timeval *tv, void *tz)
{
    return (int)syscall(SYS_gettimeofday, tv, tz);
}

static _Atomic(gettimeofday_fn) next_gettimeofday = raw_gettimeofday;

/* A NULL tv asks for no time, and libc returns 0 without a reading (after
 * filling tz); no stamp is drawn then either. */
EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    if (tz != NULL) {
        struct timeval scratch;
        int saved = errno;
        (void)atomic_load_explicit(&next_gettimeofday, memory_order_relaxed)(&scratch, tz);
        errno = saved;
    }
    if (is_null(tv))
        return 0;
    monostamp__stamped s = draw(1);
    if (s.rc != 0)
        return -1;
    int64_t us = s.ns / 1000;
    tv->tv_sec = (time_t)(us / 1000000);
    tv->tv_usec = (suseconds_t)(us % 1000000);
    return 0;
}

/* Whole seconds of a stamp of the sequence, not libc's own time(), which
 * lags clock_gettime across a second boundary: so time() is never behind a
 * value another call already gave.  It may repeat; unique seconds would
 * run the clock a second ahead per call.  A ns stamp whatever the grain:
 * it takes the least of the sequence. */
EXPORT time_t time(time_t *out)
{
    monostamp__stamped s = draw(0);
    if (s.rc != 0)
        return (time_t)-1;
    time_t seconds = (time_t)(s.ns / NS_PER_S);
    if (out != NULL)
        *out = seconds;
    return seconds;
}

/* ---------------------------------------------------------- at load */

static size_t append(char *buf, size_t at, size_t size, const char *text)
{
    while (*text != '\0' && at + 1 < size)
        buf[at++] = *text++;
    return at;
}

/* MONOSTAMP_GRAIN: unset, empty or "ns": ns; "us": whole µs; anything else
 * is named in one line on stderr, and the grain stays ns, so a typo never
 * stops the program it is set for. */
static void read_grain(void)
{
    const char *grain = getenv("MONOSTAMP_GRAIN");
    if (grain == NULL || grain[0] == '\0' || strcmp(grain, "ns") == 0)
        return;
    if (strcmp(grain, "us") == 0) {
        atomic_store_explicit(&whole_us_grain, 1, memory_order_relaxed);
        return;
    }
    char line[200];
    size_t n = append(line, 0, sizeof line, "monostamp_preload: MONOSTAMP_GRAIN=");
    /* A long value is cut: the line stays one line. */
    n = append(line, n, sizeof line - 60, grain);
    n = append(line, n, sizeof line, ": takes ns or us; answering in ns\n");
    ssize_t unused = write(STDERR_FILENO, line, n);
    (void)unused;
}

/* Runs before main, maybe after another library's constructor has read the
 * clock already (those answers came from the raw system call and a
 * process-local state, which joining carries over). */
static void preload_init(void) __attribute__((constructor));
static void preload_init(void)
{
    monostamp_preload__find_next();
    void *found = dlsym(RTLD_NEXT, "gettimeofday");
    if (found != NULL) {
        /* dlsym's void * as a function pointer: POSIX guarantees the
         * conversion, ISO C has none, so the bits are copied. */
        gettimeofday_fn f;
        memcpy(&f, &found, sizeof f);
        atomic_store_explicit(&next_gettimeofday, f, memory_order_relaxed);
    }
    read_grain();
    monostamp_preload__join();
}
