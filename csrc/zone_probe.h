/* zone_probe.h: the fallback for a local zone we cannot parse: ask
 * localtime_r and search for the next change by probing. */
#ifndef MONOSTAMP_ZONE_PROBE_H
#define MONOSTAMP_ZONE_PROBE_H

#include "config.h"

MONOSTAMP__HIDDEN_BEGIN

/* Re-reads TZ into libc (tzset); call when the local source changed.  The
 * only place the engine lets libc look at TZ (docs/offset-engine.md, trap 7). */
void monostamp__zone_probe_reset(void);

/* The offset at t_s by localtime_r and a window [t_s, until_s) over which
 * it holds, searched no further than limit_s (> t_s).  Relies on offset
 * changes being at least 7 days apart (true of the tz database since
 * 1970): it probes every 6 days, then bisects to the second. */
void monostamp__zone_probe_window(int64_t t_s, int64_t limit_s,
                                  int32_t *offset_s, int64_t *from_s,
                                  int64_t *until_s);

MONOSTAMP__HIDDEN_END

#endif
