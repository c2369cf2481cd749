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

#include <stdint.h>
#include <time.h>

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

/* The sequence's next stamp for `reading` (ns since the epoch): strictly
 * above every stamp handed out before it by any process on the state, the
 * reading itself when that is above them all.  With `whole_us`, a whole µs
 * (the reading floored, or the next µs after the last stamp).  While the
 * state cannot be used, the reading (floored) as it is.  Lock-free, no
 * allocation: async-signal-safe. */
int64_t monostamp_preload__stamp(int64_t reading, int whole_us);

/* Joins MONOSTAMP_SHARED's file, or a private state fork() shares; for the
 * constructor.  Stamps made before it (another library's constructor) were
 * drawn from a process-local state, which the joined one is raised to. */
void monostamp_preload__join(void);

/* Writes "monostamp_preload: <what>: <why>; ..." to stderr, once per
 * process, with write(2) alone. */
void monostamp_preload__warn_once(const char *what, int code);

#pragma GCC visibility pop

#endif
