/* clock_internal.h: what the clock's files share and nobody else sees. */
#ifndef MONOSTAMP_CLOCK_INTERNAL_H
#define MONOSTAMP_CLOCK_INTERNAL_H

#include "monostamp.h"

/* Opens (creating if absent, mode 0600) the state file at `path` and maps
 * it; *last_ns then points at the shared atomic.  EFOREIGN for a file that
 * is not ours or is truncated, EVERSION for another layout, ESYSTEM with
 * errno for the OS's refusals. */
int monostamp__shared_open(const char *path, _Atomic int64_t **last_ns,
                           void **mapping, size_t *mapping_size);
/* A page of anonymous memory that fork() shares, holding one atomic. */
int monostamp__shared_anonymous(_Atomic int64_t **last_ns, void **mapping,
                                size_t *mapping_size);
void monostamp__shared_close(void *mapping, size_t mapping_size);

#endif
