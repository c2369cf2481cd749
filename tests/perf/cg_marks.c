/*
 * cg_marks.c: callgrind's client requests for the perf gate's Python
 * measurement (tests/perf/gate.py loads it with ctypes).  Zeroing before a
 * loop and dumping after it counts that loop alone in one interpreter, so
 * the gate pays the interpreter's start under callgrind once, not once per
 * path.  Outside valgrind each request is a few instructions that do
 * nothing.
 */
#include <valgrind/callgrind.h>

void perf_zero(void);
void perf_dump(const char *name);

void perf_zero(void)
{
    CALLGRIND_ZERO_STATS;
}

void perf_dump(const char *name)
{
    CALLGRIND_DUMP_STATS_AT(name);
}
