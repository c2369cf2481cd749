/*
 * first_call.c: a child of tests/python/test_native_seams.py, run by the
 * docs' recipes in place of the user's command: its first act is one
 * clock_gettime(CLOCK_REALTIME) (the preload's, when it is loaded), timed
 * by raw system calls of the monotonic clock, and then the wall clock is
 * read by the raw system call, which no preload sees.  Prints
 * "duration_ns lead_ns": how long that first call took, and how far its
 * answer is ahead of the raw wall clock read after it.
 */
#define _GNU_SOURCE 1
#include <sys/syscall.h>

#include "preload_check.h"

static int64_t raw(clockid_t id)
{
    struct timespec ts;
    CHECK(syscall(SYS_clock_gettime, id, &ts) == 0, "clock_gettime system call");
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int main(void)
{
    struct timespec ts;
    int64_t t0 = raw(CLOCK_MONOTONIC);
    CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0, "clock_gettime");
    int64_t t1 = raw(CLOCK_MONOTONIC);
    int64_t wall = raw(CLOCK_REALTIME);
    int64_t answer = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
    printf("%lld %lld\n", (long long)(t1 - t0), (long long)(answer - wall));
    return 0;
}
