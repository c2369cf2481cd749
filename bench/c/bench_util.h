/* bench_util.h: what the C benchmarks share: the monotonic time base and
 * the machine's load, printed beside figures taken on a shared machine. */
#ifndef MONOSTAMP_BENCH_UTIL_H
#define MONOSTAMP_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS_PER_S INT64_C(1000000000)

/* The machine's load: the tails say more about the neighbours than about
 * the code when it is high. */
static inline void print_load(const char *when)
{
    char buf[128] = "";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fgets(buf, sizeof buf, f) == NULL)
            buf[0] = '\0';
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = '\0';
    printf("load average %s: %s\n", when, buf[0] != '\0' ? buf : "unknown");
}

static inline int64_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

#endif
