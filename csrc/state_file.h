/*
 * state_file.h: where a clock's "last value handed out" lives when other
 * processes must see it: a state file that unrelated processes map, or an
 * anonymous page that fork() children share.
 */
#ifndef MONOSTAMP_STATE_FILE_H
#define MONOSTAMP_STATE_FILE_H

#include "config.h"

#include <stdatomic.h>

#include "os.h"

MONOSTAMP__HIDDEN_BEGIN

/* Opens the state file at `place`, creating it (mode 0600, 0660 with
 * `trust_group`) if absent, and maps it; *last_ns then points at the
 * shared atomic and *id names the file mapped.  A file it creates starts
 * `start_lead_ns` (the creating clock's lead bound) above the wall clock,
 * not at "no stamp yet": every stamp a process handed out within that
 * bound, on a deleted file of the same name or on this one's predecessor,
 * stays below the new one's first.
 * MONOSTAMP_EUNSAFE for a file another user could write,
 * MONOSTAMP_EFOREIGN for one that is not monostamp's or is truncated,
 * MONOSTAMP_EVERSION for another layout, an EOS code for the OS's
 * refusals. */
int monostamp__state_file_open(const monostamp__os_place *place, int trust_group,
                               int64_t start_lead_ns, _Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size, monostamp__os_file_id *id);

/* What a state file's atomic holds once a clock found that its path names
 * another file and moved the sequence there (clock_share.c): no stamp can
 * follow it, and whoever reads it rejoins through the path. */
#define MONOSTAMP__STATE_RETIRED INT64_MAX

/* A state in anonymous memory that fork() shares, holding "no stamp yet". */
int monostamp__state_anonymous(_Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size);

/* Unmaps a state from either function above. */
void monostamp__state_close(void *mapping, size_t mapping_size);

MONOSTAMP__HIDDEN_END

#endif
