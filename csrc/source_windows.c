/* source_windows.c: wall clocks from the Windows system time. */
#if defined(_WIN32)

#include <windows.h>

#include "source.h"

/* FILETIME counts 100 ns ticks since 1601-01-01; this many lie before 1970. */
#define EPOCH_DIFFERENCE_TICKS INT64_C(116444736000000000)

static int64_t filetime_ns(FILETIME ft)
{
    int64_t ticks = (int64_t)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime);
    return (ticks - EPOCH_DIFFERENCE_TICKS) * 100;
}

int monostamp__read_realtime(const monostamp_clock *clock, int64_t *out_ns)
{
    FILETIME ft;
    (void)clock;
    GetSystemTimePreciseAsFileTime(&ft);
    *out_ns = filetime_ns(ft);
    return MONOSTAMP_OK;
}

int monostamp__read_realtime_coarse(const monostamp_clock *clock, int64_t *out_ns)
{
    FILETIME ft;
    (void)clock;
    GetSystemTimeAsFileTime(&ft);
    *out_ns = filetime_ns(ft);
    return MONOSTAMP_OK;
}

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
