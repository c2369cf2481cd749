/* source_posix.c: wall clocks from clock_gettime (Linux, macOS, the BSDs). */
#if !defined(_WIN32)

#include <errno.h>
#include <time.h>

#include "source.h"

/* Linux spells the tick-grained clock CLOCK_REALTIME_COARSE, FreeBSD
 * CLOCK_REALTIME_FAST; elsewhere the precise clock stands in. */
#if defined(CLOCK_REALTIME_COARSE)
#define COARSE_ID CLOCK_REALTIME_COARSE
#define COARSE_NAME "clock_gettime(CLOCK_REALTIME_COARSE)"
#elif defined(CLOCK_REALTIME_FAST)
#define COARSE_ID CLOCK_REALTIME_FAST
#define COARSE_NAME "clock_gettime(CLOCK_REALTIME_FAST)"
#else
#define COARSE_ID CLOCK_REALTIME
#define COARSE_NAME "clock_gettime(CLOCK_REALTIME)"
#endif

#define NS_PER_S INT64_C(1000000000)

/* A timespec as ns, refusing instants past 2262-04-11 rather than wrap. */
static inline int timespec_ns(const struct timespec *ts, int64_t *out_ns)
{
    if (ts->tv_sec > (INT64_MAX - (NS_PER_S - 1)) / NS_PER_S ||
        ts->tv_sec < INT64_MIN / NS_PER_S + 1)
        return MONOSTAMP_ERANGE;
    *out_ns = (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
    return MONOSTAMP_OK;
}

static inline int read_clock(clockid_t id, int64_t *out_ns)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return MONOSTAMP_ESYSTEM;
    return timespec_ns(&ts, out_ns);
}

int monostamp__read_realtime(const monostamp_clock *clock, int64_t *out_ns)
{
    (void)clock;
    return read_clock(CLOCK_REALTIME, out_ns);
}

int monostamp__read_realtime_coarse(const monostamp_clock *clock, int64_t *out_ns)
{
    (void)clock;
    return read_clock(COARSE_ID, out_ns);
}

int monostamp__platform_clock_info(int source, monostamp_clock_info *out)
{
    clockid_t id;
    struct timespec res;

    if (source == MONOSTAMP_SOURCE_REALTIME) {
        id = CLOCK_REALTIME;
        out->implementation = "clock_gettime(CLOCK_REALTIME)";
    } else if (source == MONOSTAMP_SOURCE_REALTIME_COARSE) {
        id = COARSE_ID;
        out->implementation = COARSE_NAME;
    } else {
        return MONOSTAMP_EINVAL;
    }
    if (clock_getres(id, &res) != 0)
        return MONOSTAMP_ESYSTEM;
    out->name = monostamp_source_name(source);
    out->resolution_ns = (int64_t)res.tv_sec * NS_PER_S + res.tv_nsec;
    out->adjustable = 1;
    out->monotonic = 0;
    return MONOSTAMP_OK;
}

void monostamp__nap_ns(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

#endif /* !_WIN32 */
