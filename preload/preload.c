/*
 * preload.c: the calls libmonostamp_preload.so answers (docs/preload.md).
 *
 * Loaded first in LD_PRELOAD, these definitions stand in front of libc's
 * (and of a libfaketime listed after this library, which they wrap): the
 * wall-clock calls answer from one sequence shared by every process on
 * MONOSTAMP_SHARED's state file, each value strictly above every earlier
 * one (whole seconds for time(), which may repeat).  Every other clock id
 * goes to the next clock_gettime untouched, so timeouts and durations do
 * not change.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))
#define NS_PER_S INT64_C(1000000000)

/* The wall clock through the next clock_gettime, in ns: 0, or -1 with errno
 * set (an instant past 2262 is refused as EOVERFLOW rather than wrapped). */
static inline int read_wall(clockid_t id, int64_t *out)
{
    struct timespec ts;
    if (monostamp_preload__next_clock_gettime(id, &ts) != 0)
        return -1;
    if (__builtin_expect(ts.tv_sec > INT64_MAX / NS_PER_S - 1 || ts.tv_sec < 0, 0)) {
        errno = EOVERFLOW;
        return -1;
    }
    *out = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
    return 0;
}

static inline struct timespec timespec_of(int64_t ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / NS_PER_S);
    ts.tv_nsec = (long)(ns % NS_PER_S);
    return ts;
}

EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
    int64_t reading;
    if (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE)
        return monostamp_preload__next_clock_gettime(id, ts);
    if (read_wall(id, &reading) != 0)
        return -1;
    *ts = timespec_of(monostamp_preload__stamp(reading, 0));
    return 0;
}

EXPORT int timespec_get(struct timespec *ts, int base)
{
    int64_t reading;
    if (base != TIME_UTC) {
        monostamp_preload__timespec_get_fn next = monostamp_preload__next_timespec_get();
        return next != NULL ? next(ts, base) : 0;
    }
    if (read_wall(CLOCK_REALTIME, &reading) != 0)
        return 0;
    *ts = timespec_of(monostamp_preload__stamp(reading, 0));
    return base;
}

/* tz is obsolete; glibc itself fills it with zeros.  tv must not be NULL,
 * as glibc declares (and its own call would crash on it too). */
EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    int64_t reading;
    if (tz != NULL) {
        struct timezone *zone = tz;
        zone->tz_minuteswest = 0;
        zone->tz_dsttime = 0;
    }
    if (read_wall(CLOCK_REALTIME, &reading) != 0)
        return -1;
    int64_t us = monostamp_preload__stamp(reading, 1) / 1000;
    tv->tv_sec = (time_t)(us / 1000000);
    tv->tv_usec = (suseconds_t)(us % 1000000);
    return 0;
}

/* Whole seconds of a stamp of the sequence, not libc's own time(), which
 * lags clock_gettime across a second boundary: so time() is never behind a
 * value another call already gave.  It may repeat; unique seconds would
 * run the clock a second ahead per call. */
EXPORT time_t time(time_t *out)
{
    int64_t reading;
    if (read_wall(CLOCK_REALTIME, &reading) != 0)
        return (time_t)-1;
    time_t s = (time_t)(monostamp_preload__stamp(reading, 0) / NS_PER_S);
    if (out != NULL)
        *out = s;
    return s;
}

/* Runs before main, maybe after another library's constructor has read the
 * clock already (those answers came from the raw system call and a
 * process-local state, which joining carries over). */
static void preload_init(void) __attribute__((constructor));
static void preload_init(void)
{
    monostamp_preload__find_next();
    monostamp_preload__join();
}
