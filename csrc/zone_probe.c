/* zone_probe.c: offsets from localtime_r, for local zones whose data our
 * parser refuses (see zone_probe.h).  Called with the engine's lock held,
 * so glibc's own tz lock is never taken under contention from us. */
#include "config.h"

#include "calendar.h"
#include "os.h"
#include "zone_probe.h"

#define STEP_S (6 * INT64_C(86400))
#define HORIZON_S (30 * INT64_C(86400))

void monostamp__zone_probe_reset(void)
{
    monostamp__os_local_zone_reset();
}

/* The offset localtime_r gives at t_s.  UTC where it gives none, and where
 * it gives a day or more either way: glibc reads TZ=AAA-24 (POSIX allows
 * hh up to 24) as +86400 s, an offset the engine refuses everywhere else
 * (docs/offset-engine.md) and no binding can represent (Python's timezone
 * stops short of a day).  So such a zone counts as one libc cannot read,
 * and that is UTC, as for every local zone nobody can read. */
static int32_t probe(int64_t t_s)
{
    int32_t off;
    if (monostamp__os_local_offset(t_s, &off) != 0) return 0;
    return off > -MONOSTAMP__S_PER_DAY && off < MONOSTAMP__S_PER_DAY ? off : 0;
}

void monostamp__zone_probe_window(int64_t t_s, int64_t limit_s,
                                  int32_t *offset_s, int64_t *from_s,
                                  int64_t *until_s)
{
    int32_t off = probe(t_s);
    int64_t a = t_s, b;
    if (limit_s - t_s > HORIZON_S) limit_s = t_s + HORIZON_S;
    *offset_s = off;
    *from_s = t_s;
    *until_s = limit_s;
    while (a < limit_s) {
        b = limit_s - a > STEP_S ? a + STEP_S : limit_s;
        if (probe(b) != off) {
            /* probe(a) == off != probe(b): bisect to the first second that
             * differs. */
            while (b - a > 1) {
                int64_t mid = a + (b - a) / 2;
                if (probe(mid) == off) a = mid;
                else b = mid;
            }
            *until_s = b;
            return;
        }
        a = b;
    }
}
