/*
 * sleep_posix.c: the OS side of precise sleeping on POSIX systems:
 * absolute clock_nanosleep (Linux, the BSDs), relative nanosleep re-armed
 * on the monotonic clock where that is missing (macOS); Linux adds the
 * per-thread timer slack.
 */
#if defined(__unix__) || defined(__APPLE__)

#include <errno.h>
#include <time.h>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "monostamp.h"
#include "sleep_platform.h"

#define NS_PER_S INT64_C(1000000000)

int64_t monostamp__mono_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

#if defined(TIMER_ABSTIME) && !defined(__APPLE__)
int monostamp__kernel_sleep_until(int64_t deadline_ns)
{
    /* Callers pass deadlines after "now", so deadline_ns > 0 and the
     * split below needs no negative-remainder care. */
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / NS_PER_S);
    ts.tv_nsec = (long)(deadline_ns % NS_PER_S);
    for (;;) {
        /* An absolute deadline makes the EINTR restart exact: the time
         * spent in the signal handler is not added to the sleep. */
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (rc == 0)
            return MONOSTAMP_OK;
        if (rc != EINTR) {
            /* clock_nanosleep returns its error instead of setting errno. */
            errno = rc;
            return MONOSTAMP_ESYSTEM;
        }
    }
}
#else
/* XXX: not built on this project's Linux machines.  A relative sleep
 * re-armed from the monotonic clock: never early, as a signal only makes
 * the loop go round again. */
int monostamp__kernel_sleep_until(int64_t deadline_ns)
{
    for (;;) {
        int64_t left = deadline_ns - monostamp__mono_ns();
        if (left <= 0)
            return MONOSTAMP_OK;
        struct timespec ts;
        ts.tv_sec = (time_t)(left / NS_PER_S);
        ts.tv_nsec = (long)(left % NS_PER_S);
        if (nanosleep(&ts, NULL) != 0 && errno != EINTR)
            return MONOSTAMP_ESYSTEM;
    }
}
#endif

int64_t monostamp__timer_slack_get(void)
{
#if defined(__linux__) && defined(PR_GET_TIMERSLACK)
    /* The slack comes back as the return value: an int, which is enough
     * for any slack this library would narrow (it never widens one). */
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    return slack > 0 ? (int64_t)slack : -1;
#else
    return -1;
#endif
}

int monostamp__timer_slack_set(int64_t slack_ns)
{
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
    if (slack_ns < 1)
        slack_ns = 1; /* 0 would mean "reset to the default". */
    return prctl(PR_SET_TIMERSLACK, (unsigned long)slack_ns, 0, 0, 0) == 0 ? 0 : -1;
#else
    (void)slack_ns;
    errno = ENOSYS;
    return -1;
#endif
}

#else
/* ISO C forbids an empty translation unit. */
typedef int monostamp__sleep_posix_unused;
#endif
