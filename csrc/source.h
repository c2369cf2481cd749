/* source.h: the platform's wall clocks, behind one internal interface.
 * Each platform file (source_posix.c, source_windows.c) defines these. */
#ifndef MONOSTAMP_SOURCE_H
#define MONOSTAMP_SOURCE_H

#include "monostamp.h"

/* Raw readings in ns since the epoch; the clock argument is unused, so
 * that these fit monostamp_clock.read_ns. */
int monostamp__read_realtime(const monostamp_clock *clock, int64_t *out_ns);
int monostamp__read_realtime_coarse(const monostamp_clock *clock, int64_t *out_ns);

/* The facts of a platform source (not "manual"). */
int monostamp__platform_clock_info(int source, monostamp_clock_info *out);

/* Sleeps about `ns` (> 0) on the platform's monotonic clock; for the lead
 * bound, where a late wake-up only costs a later stamp. */
void monostamp__nap_ns(int64_t ns);

#endif
