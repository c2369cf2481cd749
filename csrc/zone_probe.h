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

/* Where the fold ends for t_s, whose offset is `offset_s`, and for the
 * instants after it in its window: the offset a day before t_s, where it
 * was higher, and the instant it changed (bisected to the second), plus
 * the difference; INT64_MIN if the offset a day before is not higher.
 * The standard library's rule for a naive local time (CPython's
 * local_to_seconds), under the same 7-day assumption as above. */
int64_t monostamp__zone_probe_fold_until(int64_t t_s, int32_t offset_s);

MONOSTAMP__HIDDEN_END

#endif
