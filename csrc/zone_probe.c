/* zone_probe.c: offsets from localtime_r, for local zones whose data our
 * parser refuses (see zone_probe.h).  Called with the engine's lock held,
 * so glibc's own tz lock is never taken under contention from us. */
#include "config.h"

#include "os.h"
#include "zone_probe.h"

#define STEP_S (6 * INT64_C(86400))
#define HORIZON_S (30 * INT64_C(86400))

void monostamp__zone_probe_reset(void)
{
    monostamp__os_local_zone_reset();
}

static int32_t probe(int64_t t_s)
{
    int32_t off;
    return monostamp__os_local_offset(t_s, &off) == 0 ? off : 0;
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
