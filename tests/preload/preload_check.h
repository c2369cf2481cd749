/*
 * preload_check.h: what the preload's C test and its stamper children share:
 * CHECK, readings in ns, and a barrier of files (as tests/lua/meet.lua) for
 * processes that share nothing else.
 */
#ifndef PRELOAD_CHECK_H
#define PRELOAD_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

/* One reading through the call `mode` names, in ns (µs x 1000, s x 1e9). */
static inline int64_t read_by(const char *mode)
{
    struct timespec ts;
    if (strcmp(mode, "gettimeofday") == 0) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        return (int64_t)tv.tv_sec * NS_PER_S + (int64_t)tv.tv_usec * 1000;
    }
    if (strcmp(mode, "time") == 0)
        return (int64_t)time(NULL) * NS_PER_S;
    if (strcmp(mode, "timespec_get") == 0)
        timespec_get(&ts, TIME_UTC);
    else
        clock_gettime(strcmp(mode, "coarse") == 0 ? CLOCK_REALTIME_COARSE : CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Makes prefix+phase+id and waits (monotonic clock, 120 s) for those of
 * ids 1..total. */
static inline void meet(const char *prefix, const char *phase, int id, int total)
{
    char path[4096];
    struct timespec start, now;
    snprintf(path, sizeof path, "%s%s%d", prefix, phase, id);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot make %s", path);
    fclose(f);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 1; i <= total; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s%s%d", prefix, phase, i);
        while (stat(path, &st) != 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            CHECK(now.tv_sec - start.tv_sec < 120, "%s never came", path);
            usleep(100);
        }
    }
}

static inline void write_values(const char *path, const int64_t *v, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && fwrite(v, sizeof *v, n, f) == n && fclose(f) == 0, "writing %s", path);
}

static inline int64_t *read_values(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "no %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    int64_t *v = malloc((size_t)size + 8);
    *n = fread(v, sizeof *v, (size_t)size / sizeof *v, f);
    fclose(f);
    return v;
}

/* Each reading strictly above the one before. */
static inline void check_increasing(const char *what, const int64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        CHECK(v[i] > v[i - 1], "%s: reading %zu (%lld) not above reading %zu (%lld)", what, i,
              (long long)v[i], i - 1, (long long)v[i - 1]);
}

#endif
