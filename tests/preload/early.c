/*
 * early.c: libearly.so, listed after the preload in LD_PRELOAD, whose
 * constructor therefore runs before the preload's own: it reads the clock
 * there, before the preload has resolved anything, and keeps the readings
 * for test_preload's "early" check.
 */
#include "preload_check.h"

enum { EARLY_N = 64 };
__attribute__((visibility("default"))) int64_t preload_test_early[EARLY_N];

static void read_early(void) __attribute__((constructor));
static void read_early(void)
{
    for (int i = 0; i < EARLY_N; i++)
        preload_test_early[i] = read_by(i % 2 ? "clock_gettime" : "gettimeofday");
}
