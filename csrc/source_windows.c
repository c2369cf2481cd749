/* source_windows.c: wall clocks from the Windows system time. */
#if defined(_WIN32)

#include <windows.h>

#include "source.h"

int monostamp__platform_clock_info(int source, monostamp_clock_info *out)
{
    if (source == MONOSTAMP_SOURCE_REALTIME) {
        out->implementation = "GetSystemTimePreciseAsFileTime()";
        out->resolution_ns = 100;
    } else if (source == MONOSTAMP_SOURCE_REALTIME_COARSE) {
        out->implementation = "GetSystemTimeAsFileTime()";
        out->resolution_ns = 15625000; /* the default 64 Hz tick */
    } else {
        return MONOSTAMP_EINVAL;
    }
    out->name = monostamp_source_name(source);
    out->adjustable = 1;
    out->monotonic = 0;
    return MONOSTAMP_OK;
}

void monostamp__nap_ns(int64_t ns)
{
    Sleep((DWORD)(ns / 1000000 + 1));
}

#endif /* _WIN32 */
