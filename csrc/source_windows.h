/* source_windows.h: the wall-clock reads from the Windows system time,
 * inline like source_posix.h.  Included by source.h. */
#if defined(_WIN32)
#ifndef MONOSTAMP_SOURCE_WINDOWS_H
#define MONOSTAMP_SOURCE_WINDOWS_H

#include <windows.h>

#include "monostamp.h"

/* FILETIME counts 100 ns ticks since 1601-01-01; this many lie before 1970. */
#define MONOSTAMP__EPOCH_DIFFERENCE_TICKS INT64_C(116444736000000000)

static inline int monostamp__read_platform(int source, int64_t *out_ns)
{
    FILETIME ft;
    if (source == MONOSTAMP_SOURCE_REALTIME)
        GetSystemTimePreciseAsFileTime(&ft);
    else
        GetSystemTimeAsFileTime(&ft);
    int64_t ticks = (int64_t)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime);
    *out_ns = (ticks - MONOSTAMP__EPOCH_DIFFERENCE_TICKS) * 100;
    return MONOSTAMP_OK;
}

#endif
#endif /* _WIN32 */
