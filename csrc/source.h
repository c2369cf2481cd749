/* source.h: the platform's wall clocks, behind one internal interface.
 * The reads are inline (source_posix.h, source_windows.h); the rest lives
 * in source_posix.c and source_windows.c. */
#ifndef MONOSTAMP_SOURCE_H
#define MONOSTAMP_SOURCE_H

#include "monostamp.h"
#include "source_posix.h"
#include "source_windows.h"

/* static inline int monostamp__read_platform(int source, int64_t *out_ns):
 * a raw reading of MONOSTAMP_SOURCE_REALTIME or _REALTIME_COARSE. */

/* The facts of a platform source (not "manual"). */
int monostamp__platform_clock_info(int source, monostamp_clock_info *out);

/* Sleeps about `ns` (> 0); for the lead bound, where a late wake-up only
 * costs a later stamp. */
void monostamp__nap_ns(int64_t ns);

#endif
