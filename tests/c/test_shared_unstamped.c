/*
 * test_shared_unstamped.c: a clock that has joined a state file but not
 * stamped yet still notices the state gone backwards, keeps a fresh file's
 * start at the real clock, and raises a file written by hand at the join.
 *
 * A file made fresh (monostamp_state_file_create(), or a clock's first
 * file in a private directory) starts at "no stamp yet", and every clock
 * that joins it then has seen nothing.  Another clock on the file draws
 * ahead of real time; 0 is written over the file's value in place; then
 * the clock that has not stamped takes its first stamp.  0 is below the
 * file's anchor, so no clock handed it out: the state went backwards, and
 * that first stamp must be above everything the other clock handed out,
 * not the reading itself (which lies inside the other clock's lead).
 * Single-threaded and in order, so the old failure is certain, not a race:
 * under load, test_shared_attacks.c's threads met it when the second
 * thread's first stamp came after the write and before the first thread
 * had looked at the state again.
 */
#include <stdint.h>

#include "check.h"
#include "monostamp.h"

#if !defined(_WIN32)
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared_check.h"

#define MS INT64_C(1000000)
/* µs stamps drawn at once by the clock that leads: 100 ms of lead, well
 * inside the default 1 s bound. */
#define BLOCK 100000

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* 0 over the state file's value (LAST, at offset 64), in place: the
 * mappings see it at once. */
static int write_0_over_the_value(const char *path)
{
    int64_t zero = 0;
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    int ok = pwrite(fd, &zero, sizeof zero, 64) == (ssize_t)sizeof zero;
    return close(fd) == 0 && ok ? 0 : -1;
}

/* Two clocks join a fresh file; `leader` draws BLOCK µs stamps ahead of
 * real time; 0 is written over the value; the other clock's first stamp
 * (a single one, or a block of `first_take` if nonzero) must be above the
 * leader's block, and the leader's next stamp above that. */
static void unstamped_clock_after_0(int policy, int64_t first_take)
{
    monostamp_clock leader, late;
    int64_t first = 0, step = 0, ns = 0, next = 0;
    CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "monostamp-unstamped"), 0);
    CHECK_OK(monostamp_state_file_create(path_in_dir("state"), 0));
    CHECK_OK(open_shared_policy(&leader, path_in_dir("state"), policy));
    CHECK_OK(open_shared_policy(&late, path_in_dir("state"), policy));
    /* A fresh file: the leader's first stamp is the real clock's. */
    int64_t before = wall_ns();
    CHECK_OK(monostamp_clock_take(&leader, BLOCK, &first, &step));
    CHECK_LE(first - before, 5 * MS);
    int64_t end = first + (BLOCK - 1) * step;
    CHECK_EQ(write_0_over_the_value(path_in_dir("state")), 0);
    if (first_take != 0) {
        CHECK_OK(monostamp_clock_take(&late, first_take, &ns, &step));
    } else {
        CHECK_OK(monostamp_time_ns(&late, &ns));
    }
    CHECK_GT(ns, end);
    CHECK_OK(monostamp_time_ns(&leader, &next));
    CHECK_GT(next, ns + (first_take > 1 ? (first_take - 1) * step : 0));
    monostamp_clock_destroy(&late);
    monostamp_clock_destroy(&leader);
    check_remove_tree(dir);
}

static void test_a_stamp_after_0_from_a_clock_that_has_not_stamped(void)
{
    unstamped_clock_after_0(MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT, 0);
}

static void test_a_ns_stamp_after_0_from_a_clock_that_has_not_stamped(void)
{
    unstamped_clock_after_0(MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 0);
}

static void test_a_block_after_0_from_a_clock_that_has_not_stamped(void)
{
    unstamped_clock_after_0(MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT, 10);
}

/* The same without the write: a fresh file's "no stamp yet" is no state
 * gone backwards, so the first stamp of each clock is its reading, and
 * the file keeps "no stamp yet" until someone stamps. */
static void test_a_fresh_file_still_starts_at_the_real_clock(void)
{
    monostamp_clock a, b;
    monostamp_state_info info;
    int64_t x = 0, y = 0;
    CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "monostamp-unstamped"), 0);
    CHECK_OK(monostamp_state_file_create(path_in_dir("state"), 0));
    CHECK_OK(open_shared_policy(&a, path_in_dir("state"),
                                MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT));
    CHECK_OK(open_shared_policy(&b, path_in_dir("state"),
                                MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT));
    CHECK_OK(monostamp_state_file_info(path_in_dir("state"), &info));
    CHECK_EQ(info.last_ns, INT64_MIN);
    int64_t before = wall_ns();
    CHECK_OK(monostamp_time_ns(&b, &x));
    CHECK_OK(monostamp_time_ns(&a, &y));
    CHECK_LE(x - before, 5 * MS);
    CHECK_GT(y, x);
    CHECK_LE(y - before, 5 * MS);
    monostamp_clock_destroy(&a);
    monostamp_clock_destroy(&b);
    check_remove_tree(dir);
}

/* A file written by hand (no anchor) holding 0, or "no stamp yet", says
 * nothing of the stamps handed out before it: a clock that joins it raises
 * it at the join, above the wall clock by its bound, before any stamp. */
static void test_a_hand_made_file_is_raised_at_the_join(void)
{
    static const int64_t values[] = {0, INT64_MIN};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        unsigned char bytes[128] = {0};
        uint32_t version = 1, size = sizeof bytes;
        monostamp_clock clock;
        monostamp_state_info info;
        memcpy(bytes, "monostmp", 8);
        memcpy(bytes + 8, &version, 4);
        memcpy(bytes + 12, &size, 4);
        memcpy(bytes + 64, &values[i], 8);
        CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "monostamp-unstamped"), 0);
        write_file(path_in_dir("state"), bytes, sizeof bytes);
        int64_t before = wall_ns();
        CHECK_OK(open_shared_policy(&clock, path_in_dir("state"),
                                    MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT));
        CHECK_OK(monostamp_state_file_info(path_in_dir("state"), &info));
        CHECK_GE(info.last_ns, before + 900 * MS);
        monostamp_clock_destroy(&clock);
        check_remove_tree(dir);
    }
}
#else
static void test_a_stamp_after_0_from_a_clock_that_has_not_stamped(void)
{
    SKIP("the test writes into the mapped file with pwrite()");
}
#endif

int main(void)
{
    RUN(test_a_stamp_after_0_from_a_clock_that_has_not_stamped);
#if !defined(_WIN32)
    RUN(test_a_ns_stamp_after_0_from_a_clock_that_has_not_stamped);
    RUN(test_a_block_after_0_from_a_clock_that_has_not_stamped);
    RUN(test_a_fresh_file_still_starts_at_the_real_clock);
    RUN(test_a_hand_made_file_is_raised_at_the_join);
#endif
    return check_summary();
}
