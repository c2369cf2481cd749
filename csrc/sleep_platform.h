/*
 * sleep_platform.h: what the sleep strategy (sleep.c) needs from the OS.
 * One implementation per platform file (sleep_posix.c); sleep.c itself is
 * portable C11 and never includes an OS header.
 */
#ifndef MONOSTAMP_SLEEP_PLATFORM_H
#define MONOSTAMP_SLEEP_PLATFORM_H

#include <stdint.h>

/* CLOCK_MONOTONIC now, in ns; 0 if it cannot be read (never seen). */
int64_t monostamp__mono_ns(void);

/* Blocks until CLOCK_MONOTONIC reaches `deadline_ns`, an absolute time, so
 * that a signal handler's run does not stretch the sleep: the sleep is
 * simply resumed.  0, or MONOSTAMP_ESYSTEM with errno set. */
int monostamp__kernel_sleep_until(int64_t deadline_ns);

/* The calling thread's timer slack in ns (the time the kernel may add to
 * a timer to batch wake-ups), or -1 where there is no such knob or it
 * cannot be read. */
int64_t monostamp__timer_slack_get(void);

/* Sets the calling thread's timer slack to `slack_ns` (>= 1: Linux reads 0
 * as "back to the default").  0, or -1 on failure (errno set). */
int monostamp__timer_slack_set(int64_t slack_ns);

/* A hint to the CPU that we are busy-waiting: it lets a sibling
 * hyper-thread run and saves power, without giving the core away. */
static inline void monostamp__cpu_relax(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#elif defined(__GNUC__) && (defined(__aarch64__) || defined(__arm__))
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
