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

/* Opens the state file at `path`, creating it (mode 0600, 0660 with
 * `trust_group`) if absent, and maps it; *last_ns then points at the
 * shared atomic and *id names the file mapped.  A file it creates starts
 * 1 ms above the wall clock, not at "no stamp yet": processes still on a
 * deleted file of the same name, whose stamps are near the wall clock,
 * are not repeated by the new one's first stamps.
 * MONOSTAMP_EUNSAFE for a file another user could write,
 * MONOSTAMP_EFOREIGN for one that is not monostamp's or is truncated,
 * MONOSTAMP_EVERSION for another layout, an EOS code for the OS's
 * refusals. */
int monostamp__state_file_open(const char *path, int trust_group, _Atomic int64_t **last_ns,
                               void **mapping, size_t *mapping_size,
                               monostamp__os_file_id *id);

/* A state in anonymous memory that fork() shares, holding "no stamp yet". */
int monostamp__state_anonymous(_Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size);

/* Unmaps a state from either function above. */
void monostamp__state_close(void *mapping, size_t mapping_size);

MONOSTAMP__HIDDEN_END

#endif
