/*
 * clock_share.h: a clock's state on a file that other processes map, and
 * what happens when that file is deleted or replaced under the clock.
 */
#ifndef MONOSTAMP_CLOCK_SHARE_H
#define MONOSTAMP_CLOCK_SHARE_H

#include "config.h"

#include "clock_layout.h"

MONOSTAMP__HIDDEN_BEGIN

/* How often, in the clock's own readings, a shared clock looks whether its
 * path still names the file it mapped. */
#define MONOSTAMP__STATE_RECHECK_NS MONOSTAMP__NS_PER_S

/* Moves the clock's state onto the state file at `path` (opened, or
 * created), first raising the file's sequence to the clock's last stamp so
 * that stamps keep increasing, and follows that path from then on.  The
 * state the clock leaves stays mapped until the clock is destroyed: a
 * thread may still hold a pointer into it.  Errors as for
 * monostamp__state_file_open, or MONOSTAMP_ENOMEM; on error the clock is
 * unchanged.  Not thread-safe with itself (callers serialise); safe with
 * stamps under way. */
int monostamp__clock_share(monostamp__clock *clock, const char *path, int trust_group);

/* The slow half of the check a stamp makes: called when `reading` passed
 * recheck_at_ns.  If the path no longer names the mapped file (deleted, or
 * replaced by a new one), the clock moves onto whatever the path names
 * now, creating it if absent, raised above the clock's last stamp: the
 * split sequence joins again.  One thread checks at a time; the others
 * go on without waiting. */
void monostamp__clock_recheck(monostamp__clock *clock, int64_t reading);

/* Unmaps every state the clock mapped and forgets the path; for destroy. */
void monostamp__clock_unshare(monostamp__clock *clock);

MONOSTAMP__HIDDEN_END

#endif
