/*
 * preload.h: the parts of libmonostamp_preload.so (docs/preload.md).
 *
 * preload_next.c finds the functions the preload stands in front of (libc's,
 * or another preload's such as libfaketime's), preload_sequence.c keeps the
 * one sequence every answer is drawn from, and preload.c is the interposed
 * calls themselves.  Nothing here is exported but what exports.map lists.
 */
#ifndef MONOSTAMP_PRELOAD_H
#define MONOSTAMP_PRELOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "monostamp.h"

#include "clock_stamp.h"

#pragma GCC visibility push(hidden)

/* What clock_gettime would answer without this library: the next
 * definition after it (dlsym(RTLD_NEXT)), or the raw system call until
 * the constructor has found that one.  0, or -1 with errno set.
 * Async-signal-safe. */
int monostamp_preload__next_clock_gettime(clockid_t id, struct timespec *ts);

/* The next timespec_get after this library, or NULL until it is found. */
typedef int (*monostamp_preload__timespec_get_fn)(struct timespec *, int);
monostamp_preload__timespec_get_fn monostamp_preload__next_timespec_get(void);

/* Looks the next definitions up; for the constructor. */
void monostamp_preload__find_next(void);

/* The core clock the answers are drawn from (preload_sequence.c), and
 * whether it was left for the real clock (a state it cannot use). */
extern monostamp__clock monostamp_preload__sequence;
extern atomic_bool monostamp_preload__left;

/* The rare answers of monostamp_preload__stamp, out of line: `rc` is what
 * the clock's stamp returned. */
monostamp__stamped monostamp_preload__stamp_again(int whole_us, int rc);

/* The sequence's next stamp, in ns since the epoch: drawn by the core's
 * own clock (csrc/clock.c) from the next clock_gettime's CLOCK_REALTIME,
 * under the core's rules for the state file (its lead bound, its reference
 * of real time, following a replaced or retired file).  With `whole_us`, a
 * whole µs (the µs policy's rule on the same sequence).  `rc` 0, or -1
 * with errno set (the reading failed, or an instant past 2262: EOVERFLOW).
 * While the state cannot be used, the reading itself (floored), with one
 * line on stderr.  The draw takes no lock and allocates nothing: safe
 * before main and in a signal handler (docs/preload.md).  Inline, so that
 * an answer is one call into the core's clock; the clock's own bound is
 * the preload's, so the entry points of its own bound.  The stamp comes
 * back in registers (clock_stamp.h), so the answer made of it need not
 * wait for the stamp's compare-and-swap to finish. */
static inline monostamp__stamped monostamp_preload__stamp(int whole_us)
{
    if (__builtin_expect(atomic_load_explicit(&monostamp_preload__left, memory_order_relaxed),
                         0))
        return monostamp_preload__stamp_again(whole_us, MONOSTAMP_EINVAL);
    monostamp__stamped s = whole_us ? monostamp__clock_time_us(&monostamp_preload__sequence)
                                    : monostamp__clock_time_ns(&monostamp_preload__sequence);
    if (__builtin_expect(s.rc != MONOSTAMP_OK, 0))
        return monostamp_preload__stamp_again(whole_us, s.rc);
    return s; /* rc 0: MONOSTAMP_OK */
}

/* Joins MONOSTAMP_SHARED's file, or a private state fork() shares; for the
 * constructor.  Stamps made before it (another library's constructor) were
 * drawn on a process-local state, which the joined one is raised to. */
void monostamp_preload__join(void);

/* Writes "monostamp_preload: <what>: <why>; ..." to stderr, once per
 * process, with write(2) alone. */
void monostamp_preload__warn_once(const char *what, int code);

#pragma GCC visibility pop

#endif
