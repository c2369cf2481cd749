/*
 * stamper.c: a child of test_preload (and of tests/python/test_preload.py):
 *   stamper MODE N OUT [MEET_PREFIX ID TOTAL]
 * reads the clock N times through MODE (clock_gettime, coarse, gettimeofday,
 * timespec_get, time), meeting the others before the first reading and
 * half way, and writes the readings to OUT as int64 ns.
 */
#include "preload_check.h"

int main(int argc, char **argv)
{
    CHECK(argc == 4 || argc == 7, "usage: stamper MODE N OUT [MEET_PREFIX ID TOTAL]");
    const char *mode = argv[1];
    size_t n = (size_t)strtoull(argv[2], NULL, 10);
    int64_t *v = malloc(n * sizeof *v + 8);
    CHECK(v != NULL, "no memory");
    if (argc == 7)
        meet(argv[4], "a", atoi(argv[5]), atoi(argv[6]));
    for (size_t i = 0; i < n / 2; i++)
        v[i] = read_by(mode);
    if (argc == 7)
        meet(argv[4], "b", atoi(argv[5]), atoi(argv[6]));
    for (size_t i = n / 2; i < n; i++)
        v[i] = read_by(mode);
    write_values(argv[3], v, n);
    return 0;
}
