/*
 * sleep_windows.c: the OS side of precise sleeping on Windows.  The
 * monotonic clock is QueryPerformanceCounter; the kernel sleep is a
 * high-resolution waitable timer (Windows 10 1803+), else a plain one.
 * Windows has no per-thread timer slack, so the slack calls say "none".
 *
 * XXX: not compiled on the Linux machines this project is built on; it
 * follows source_windows.c and needs a Windows build to be checked.
 */
#if defined(_WIN32)

#include <errno.h>
#include <windows.h>

#include "monostamp.h"
#include "sleep_platform.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

#define NS_PER_S INT64_C(1000000000)

int64_t monostamp__mono_ns(void)
{
    LARGE_INTEGER count, freq;
    if (!QueryPerformanceFrequency(&freq) || !QueryPerformanceCounter(&count) ||
        freq.QuadPart <= 0)
        return 0;
    /* Split so that count * 1e9 cannot overflow. */
    int64_t whole = count.QuadPart / freq.QuadPart;
    int64_t part = count.QuadPart % freq.QuadPart;
    return whole * NS_PER_S + part * NS_PER_S / freq.QuadPart;
}

int monostamp__kernel_sleep_until(int64_t deadline_ns)
{
    HANDLE timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                          TIMER_ALL_ACCESS);
    if (timer == NULL)
        timer = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
    if (timer == NULL) {
        errno = ENOMEM;
        return MONOSTAMP_ESYSTEM;
    }
    int rc = MONOSTAMP_OK;
    /* Waitable timers take absolute times on the wall clock only, so the
     * deadline is re-armed relative to QPC until it has really passed. */
    for (;;) {
        int64_t left = deadline_ns - monostamp__mono_ns();
        if (left <= 0)
            break;
        LARGE_INTEGER due;
        due.QuadPart = -((left + 99) / 100); /* negative: relative, 100 ns units */
        if (!SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE) ||
            WaitForSingleObject(timer, INFINITE) != WAIT_OBJECT_0) {
            errno = EINVAL;
            rc = MONOSTAMP_ESYSTEM;
            break;
        }
    }
    CloseHandle(timer);
    return rc;
}

int64_t monostamp__timer_slack_get(void)
{
    return -1;
}

int monostamp__timer_slack_set(int64_t slack_ns)
{
    (void)slack_ns;
    errno = ENOSYS;
    return -1;
}

#else
/* ISO C forbids an empty translation unit. */
typedef int monostamp__sleep_windows_unused;
#endif
