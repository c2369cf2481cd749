/*
 * preload_next.c: the functions libmonostamp_preload.so stands in front of.
 *
 * dlsym takes the loader's lock and may allocate, so it is called once, in
 * the constructor, never on an answering path.  Another library's
 * constructor can read the clock before ours has run: until then the wall
 * clock is read with the raw system call, which needs nothing resolved.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os.h"
#include "preload.h"

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static int raw_clock_gettime(clockid_t id, struct timespec *ts)
{
    return (int)syscall(SYS_clock_gettime, id, ts);
}

/* Written once by the constructor, read by every answer: atomic, relaxed
 * (a plain load), so a thread some other constructor started sees either. */
static _Atomic(clock_gettime_fn) next_clock_gettime = raw_clock_gettime;
static _Atomic(monostamp_preload__timespec_get_fn) next_timespec_get;

int monostamp_preload__next_clock_gettime(clockid_t id, struct timespec *ts)
{
    return atomic_load_explicit(&next_clock_gettime, memory_order_relaxed)(id, ts);
}

monostamp_preload__timespec_get_fn monostamp_preload__next_timespec_get(void)
{
    return atomic_load_explicit(&next_timespec_get, memory_order_relaxed);
}

/* dlsym's void * as a function pointer: POSIX guarantees the conversion,
 * ISO C has none, so the bits are copied. */
static void *next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

void monostamp_preload__find_next(void)
{
    void *found = next_symbol("clock_gettime");
    if (found != NULL) {
        clock_gettime_fn f;
        memcpy(&f, &found, sizeof f);
        atomic_store_explicit(&next_clock_gettime, f, memory_order_relaxed);
        /* The core's clock reads the wall clock through its own pointer
         * (csrc/os.h), which starts at this file's forwarder: from now on
         * it calls the next definition itself, one call less per stamp.
         * Set before main, before the threads that read it exist. */
        monostamp__os_wall_clock_gettime = f;
    }
    found = next_symbol("timespec_get");
    if (found != NULL) {
        monostamp_preload__timespec_get_fn f;
        memcpy(&f, &found, sizeof f);
        atomic_store_explicit(&next_timespec_get, f, memory_order_relaxed);
    }
}

/* The one extra symbol the library exports: monostamp's own clocks in this
 * process (the Python extension's and the Lua module's copies of the core)
 * find it at load (csrc/os_posix.c) and read the clock through it, past
 * this library's answer, so that their sequence is fed readings, not
 * stamps. */
__attribute__((visibility("default"))) int monostamp_preload_next_clock_gettime(
    clockid_t id, struct timespec *ts);
int monostamp_preload_next_clock_gettime(clockid_t id, struct timespec *ts)
{
    return monostamp_preload__next_clock_gettime(id, ts);
}
