/*
 * flat_out.c: a child of tests/python/test_native_seams.py:
 *   flat_out MODE OUT READY STOP
 * reads the clock through MODE (as stamper.c) back to back until the file
 * STOP exists, makes the file READY after its first 4096 readings (so the
 * test starts the others while it is drawing), and writes every reading to
 * OUT as int64 ns.  Prints "readings seconds raw_end_ns": the count, the
 * time it drew for (monotonic), and, under the preload, the wall clock
 * read past it at the end (what clock_gettime answers without it), else 0.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>

#include "preload_check.h"

typedef int (*clock_fn)(clockid_t, struct timespec *);

int main(int argc, char **argv)
{
    CHECK(argc == 5, "usage: flat_out MODE OUT READY STOP");
    const char *mode = argv[1];
    size_t cap = 1 << 20, n = 0;
    int64_t *v = malloc(cap * sizeof *v);
    CHECK(v != NULL, "no memory");
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        /* A look for STOP every 4096 readings: the loop stays a loop of
         * clock calls. */
        for (int i = 0; i < 4096; i++) {
            if (n == cap) {
                cap *= 2;
                v = realloc(v, cap * sizeof *v);
                CHECK(v != NULL, "no memory for %zu readings", cap);
            }
            v[n++] = read_by(mode);
        }
        if (n == 4096) {
            FILE *ready = fopen(argv[3], "w");
            CHECK(ready != NULL && fclose(ready) == 0, "cannot make %s", argv[3]);
        }
        if (access(argv[4], F_OK) == 0)
            break;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    int64_t raw_end = 0;
    void *found = dlsym(RTLD_DEFAULT, "monostamp_preload_next_clock_gettime");
    if (found != NULL) {
        clock_fn next;
        struct timespec ts;
        memcpy(&next, &found, sizeof next); /* POSIX's void * to function pointer */
        next(CLOCK_REALTIME, &ts);
        raw_end = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
    }
    write_values(argv[2], v, n);
    printf("%zu %.6f %lld\n", n,
           (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9,
           (long long)raw_end);
    return 0;
}
