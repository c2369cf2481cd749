/* source_posix.c: wall clocks from clock_gettime (Linux, macOS, the BSDs). */
#if !defined(_WIN32)

#include <errno.h>
#include <time.h>

#include "source.h"

#define NS_PER_S MONOSTAMP__NS_PER_SECOND

int monostamp__platform_clock_info(int source, monostamp_clock_info *out)
{
    clockid_t id;
    struct timespec res;

    if (source == MONOSTAMP_SOURCE_REALTIME) {
        id = CLOCK_REALTIME;
        out->implementation = "clock_gettime(CLOCK_REALTIME)";
    } else if (source == MONOSTAMP_SOURCE_REALTIME_COARSE) {
        id = MONOSTAMP__COARSE_ID;
        out->implementation = MONOSTAMP__COARSE_NAME;
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
