/*
 * clock_share.h: a clock's state on a file that other processes map, and
 * what happens when that file is deleted or replaced under the clock.
 */
#ifndef MONOSTAMP_CLOCK_SHARE_H
#define MONOSTAMP_CLOCK_SHARE_H

#include "config.h"

#include "clock_layout.h"

MONOSTAMP__HIDDEN_BEGIN

/* How often, in the clock's own readings, a clock makes a checkpoint: it
 * samples its anchor (a monotonic reading), and a shared clock looks
 * whether its path still names the file it mapped (one fstatat): about
 * 1 µs in 5 ms (0.02 %).  Correctness does not hang on the look (a retired
 * state stops every process on it at once); it bounds how long a newcomer
 * on a new file and the processes on the old one run side by side. */
#define MONOSTAMP__STATE_RECHECK_NS INT64_C(5000000)

/* The reading at which the checkpoint after one at `reading` is due. */
int64_t monostamp__clock_next_checkpoint(int64_t reading);

/* Moves the clock's state onto the state file at `path` (opened, or
 * created), first raising the file's sequence to the clock's last stamp
 * (and its anchor to the clock's) so that stamps keep increasing, and follows that file's place (its
 * directory pinned now, its name) from then on.  The state the clock
 * leaves is not retired (others may still use it) and stays mapped until
 * the clock is destroyed: a thread may still hold a pointer into it.
 * Errors as for monostamp__state_file_open or monostamp__os_place_pin,
 * MONOSTAMP_EINVAL for an empty path, or MONOSTAMP_ENOMEM; on error the
 * clock is unchanged.  Safe with stamps under way. */
int monostamp__clock_share(monostamp__clock *clock, const char *path, int trust_group);

/* The slow half of the check a stamp makes: called when `reading` passed
 * recheck_at_ns.  A platform source's clock raises its state's anchor to
 * this reading's.  If the clock is shared and its place no longer names
 * the mapped file (deleted, or replaced by a new one), the clock moves
 * onto whatever it names now, creating it if absent, raised above the old
 * state, which it retires.  One thread looks at a time; the others go on
 * without waiting.  MONOSTAMP_EINVAL for a destroyed clock (whose
 * recheck_at_ns is INT64_MIN, so that every call lands here), else
 * MONOSTAMP_OK. */
int monostamp__clock_checkpoint(monostamp__clock *clock, int64_t reading);

/* A stamp of a shared clock read MONOSTAMP__STATE_RETIRED in `seen`, the
 * state it loaded: moves the clock onto what its place names now (unless
 * another thread did), so that the stamp is made there.  MONOSTAMP_OK to
 * make the stamp again; an error from opening the file, or
 * MONOSTAMP_ERANGE if the place still names the retired file, which fail
 * the stamp. */
int monostamp__clock_rejoin(monostamp__clock *clock, _Atomic int64_t *seen);

/* A stamp found the clock's state `cell` below clock->seen_ns: it went
 * backwards (overwritten in place, a replacement nobody raised).  Raises
 * it above every stamp any process could have handed out: the reference
 * of real time (the state's anchor, or the clock's own if higher) plus the
 * lead bound (the clock's, or the default for an unbounded clock), and
 * above seen_ns.  Unless it is "no stamp yet" and the clock joined it so
 * and has stamped nothing since (seen_ns is then the state's anchor): the
 * state then takes its anchor, so that the next try stamps the reading.
 * MONOSTAMP_OK. */
int monostamp__clock_recover(monostamp__clock *clock, _Atomic int64_t *cell);

/* Moves a clock that shares no file onto `cell`, a state in memory that
 * lives as long as the process (an anonymous page fork() shares): raised
 * to the clock's last stamp, with its anchor and its bound carried along.
 * Safe with stamps under way. */
void monostamp__clock_adopt(monostamp__clock *clock, _Atomic int64_t *cell);

/* Adds what the clock counted and has not published yet to the state
 * file counts `counts` (monostamp__state_counts; clock_counts.c). */
void monostamp__clock_publish(monostamp__clock *clock, _Atomic uint64_t *counts);

/* Takes everything the clock counted so far as published: what a clock
 * counted before it joined a file belongs to no file. */
void monostamp__clock_forget_counts(monostamp__clock *clock);

/* monostamp__clock_publish into the file the shared clock is on now (the
 * watch held, so the file cannot change under it).  MONOSTAMP_OK. */
int monostamp__clock_publish_shared(monostamp__clock *clock);

/* Unmaps every state the clock mapped and forgets the path; for destroy.
 * Publishes the clock's counts into the file it is on first. */
void monostamp__clock_unshare(monostamp__clock *clock);

MONOSTAMP__HIDDEN_END

#endif
