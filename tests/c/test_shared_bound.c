/*
 * test_shared_bound.c: a state file's one lead bound, its count of joins,
 * monostamp_state_file_info, and where a new file starts.
 *
 * Every reader of a state file keeps the tightest bound any reader of it
 * promised: a clock allowed a second ahead, drawing whole µs flat out
 * beside a reader promised 5 ms, is held to 5 ms, so that reader never
 * waits longer than its own bound nor hands out values further ahead.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "os.h"
#include "shared_check.h"

#define MS INT64_C(1000000)

#if defined(_WIN32)
#define NOT_FOUND_ERRNO ERROR_FILE_NOT_FOUND
#else
#define NOT_FOUND_ERRNO ENOENT
#endif

/* A fresh directory for each test, made empty (mode 0700); the last
 * test's removed. */
static void fresh_dir(const char *name)
{
    if (dir[0] != '\0')
        (void)check_remove_tree(dir);
    if (check_make_temp_dir(dir, sizeof dir, name) != 0) {
        perror("fresh_dir");
        exit(1);
    }
}

static int open_with(monostamp_clock *clock, const char *path, int policy, int64_t max_lead_ns)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    o.policy = policy;
    o.max_lead_ns = max_lead_ns;
    return monostamp_clock_init(clock, &o);
}

static int64_t wall_ns(void)
{
    int64_t ns = 0;
    (void)monostamp__os_clock_read(MONOSTAMP_SOURCE_REALTIME, &ns);
    return ns;
}

/* Draws `n` whole µs flat out from `clock` and gives the largest lead of
 * a stamp over the wall clock read right after it. */
static int64_t largest_lead_of_a_burst(monostamp_clock *clock, int n, int *failed)
{
    int64_t largest = INT64_MIN, previous = INT64_MIN;
    for (int i = 0; i < n; i++) {
        int64_t ns;
        if (monostamp_time_ns(clock, &ns) != MONOSTAMP_OK || ns <= previous) {
            *failed = 1;
            return 0;
        }
        previous = ns;
        int64_t lead = ns - wall_ns();
        if (lead > largest)
            largest = lead;
    }
    return largest;
}

static void test_the_tightest_promise_is_the_files_bound(void)
{
    monostamp_clock loose, tight;
    monostamp_state_info info;
    fresh_dir("monostamp-bound");
    const char *path = path_in_dir("state");
    CHECK_OK(open_with(&loose, path, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT,
                       1000 * MS));
    CHECK_OK(monostamp_state_file_info(path, &info));
    CHECK_EQ(info.max_lead_ns, 1000 * MS);
    CHECK_EQ(info.joins, 1);
    CHECK_OK(open_with(&tight, path, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 5 * MS));
    CHECK_OK(monostamp_state_file_info(path, &info));
    CHECK_EQ(info.max_lead_ns, 5 * MS);
    CHECK_EQ(info.joins, 2);
    /* 100,000 whole µs run 100 ms ahead unless held: the loose clock is
     * held to the tight one's 5 ms (1 µs for the last reading's floor). */
    int failed = 0;
    int64_t lead = largest_lead_of_a_burst(&loose, 100000, &failed);
    CHECK(!failed);
    CHECK_LE(lead, 5 * MS + 1000);
    CHECK_GT(lead, 1 * MS); /* it did run ahead, up to the bound */
    /* A looser clock joining later loosens nothing. */
    monostamp_clock later;
    CHECK_OK(open_with(&later, path, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 0));
    CHECK_OK(monostamp_state_file_info(path, &info));
    CHECK_EQ(info.max_lead_ns, 5 * MS);
    CHECK_EQ(info.joins, 3);
    monostamp_clock_destroy(&later);
    monostamp_clock_destroy(&tight);
    monostamp_clock_destroy(&loose);
}

static void test_a_draw_promises_its_bound_to_the_file(void)
{
    monostamp_clock a, b;
    monostamp_stamp s;
    monostamp_state_info info;
    fresh_dir("monostamp-draw");
    const char *path = path_in_dir("state");
    CHECK_OK(open_with(&a, path, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT, 1000 * MS));
    CHECK_OK(open_with(&b, path, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 1000 * MS));
    CHECK_OK(monostamp_state_file_info(path, &info));
    CHECK_EQ(info.max_lead_ns, 1000 * MS);
    /* A patched datetime.now() draws so: 5 ms for its caller. */
    CHECK_OK(monostamp_draw(&b, MONOSTAMP_DRAW_US, 5 * MS, &s));
    CHECK_OK(monostamp_state_file_info(path, &info));
    CHECK_EQ(info.max_lead_ns, 5 * MS);
    int failed = 0;
    int64_t lead = largest_lead_of_a_burst(&a, 50000, &failed);
    CHECK(!failed);
    CHECK_LE(lead, 5 * MS + 1000);
    /* The drawing clock's next draw is within its caller's bound. */
    CHECK_OK(monostamp_draw(&b, MONOSTAMP_DRAW_US, 5 * MS, &s));
    CHECK_LE(s.utc_ns - wall_ns(), 5 * MS + 1000);
    monostamp_clock_destroy(&b);
    monostamp_clock_destroy(&a);
}

/* A block longer than the file's bound fails: no wait can bring it in. */
static void test_a_block_is_held_to_the_files_bound(void)
{
    monostamp_clock a, b;
    int64_t first, step;
    fresh_dir("monostamp-block");
    const char *path = path_in_dir("state");
    CHECK_OK(open_with(&a, path, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT, 1000 * MS));
    CHECK_OK(monostamp_clock_take(&a, 100000, &first, &step)); /* 100 ms: within 1 s */
    CHECK_OK(open_with(&b, path, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 5 * MS));
    CHECK_RC(monostamp_clock_take(&a, 100000, &first, &step), MONOSTAMP_ELEAD);
    CHECK_OK(monostamp_clock_take(&a, 1000, &first, &step)); /* 1 ms: within 5 */
    monostamp_clock_destroy(&b);
    monostamp_clock_destroy(&a);
}

/* A file that replaces the one the clocks were on keeps its promises. */
static void test_the_bound_moves_with_the_sequence(void)
{
    monostamp_clock a;
    monostamp_state_info info;
    int64_t ns;
    fresh_dir("monostamp-moved");
    const char *path = path_in_dir("state");
    CHECK_OK(open_with(&a, path, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 5 * MS));
    CHECK_OK(monostamp_time_ns(&a, &ns));
    CHECK_OK(remove(path) == 0 ? MONOSTAMP_OK : MONOSTAMP_EINVAL);
    /* Made by a clock that promises less: the move carries 5 ms over. */
    monostamp_clock other;
    CHECK_OK(open_with(&other, path, MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT, 0));
    monostamp_clock_destroy(&other);
    /* Past the next checkpoint (5 ms of readings), the clock moves. */
    int64_t until = wall_ns() + 20 * MS;
    while (wall_ns() < until)
        CHECK_OK(monostamp_time_ns(&a, &ns));
    CHECK_OK(monostamp_state_file_info(path, &info));
    CHECK_EQ(info.max_lead_ns, 5 * MS);
    CHECK_GE(info.joins, 2);
    monostamp_clock_destroy(&a);
}

static void test_info_refuses_what_is_no_state_file(void)
{
    monostamp_state_info info;
    fresh_dir("monostamp-info");
    CHECK_RC(monostamp_state_file_info(path_in_dir("absent"), &info),
             MONOSTAMP_EOS(NOT_FOUND_ERRNO));
    char foreign[128];
    memset(foreign, 'x', sizeof foreign);
    write_file(path_in_dir("foreign"), foreign, sizeof foreign);
    CHECK_RC(monostamp_state_file_info(path_in_dir("foreign"), &info), MONOSTAMP_EFOREIGN);
    write_file(path_in_dir("short"), foreign, 64);
    CHECK_RC(monostamp_state_file_info(path_in_dir("short"), &info), MONOSTAMP_EFOREIGN);
    CHECK_RC(monostamp_state_file_info("", &info), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_state_file_info(path_in_dir("absent"), NULL), MONOSTAMP_EINVAL);
    /* A state file made for a run holds no stamp and no join yet. */
    CHECK_OK(monostamp_state_file_create(path_in_dir("made"), 0));
    CHECK_OK(monostamp_state_file_info(path_in_dir("made"), &info));
    CHECK_EQ(info.last_ns, INT64_MIN);
    CHECK_EQ(info.joins, 0);
    CHECK_EQ(info.max_lead_ns, 0);
}

/*
 * Where a file a clock creates starts: as the first entry of a directory
 * its user just made (0700, nothing ever in it), at "no stamp yet", so the
 * first stamp is the real clock's; anywhere else, its creator's bound
 * ahead, clear of a deleted file's stamps.
 */
static void test_a_file_made_first_in_a_private_directory_starts_at_the_real_clock(void)
{
    monostamp_clock a;
    monostamp_state_info info;
    int64_t ns;
    fresh_dir("monostamp-fresh");
    monostamp__os_place *place;
    CHECK_OK(monostamp__os_place_pin(path_in_dir("state"), &place));
    int pristine = monostamp__os_place_pristine(place);
    monostamp__os_place_free(place);
    if (!pristine)
        SKIP("this file system reports no birth time for directories");
    CHECK_OK(open_with(&a, path_in_dir("state"), MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                       1000 * MS));
    CHECK_OK(monostamp_state_file_info(path_in_dir("state"), &info));
    CHECK_EQ(info.last_ns, INT64_MIN);
    int64_t before = wall_ns();
    CHECK_OK(monostamp_time_ns(&a, &ns));
    CHECK_LE(ns - before, 5 * MS);
    monostamp_clock_destroy(&a);
}

static void test_a_file_made_where_one_was_starts_ahead(void)
{
    monostamp_clock a;
    monostamp_state_info info;
    fresh_dir("monostamp-used");
    /* An entry made and removed: a state file may have lived here.  After
     * a nap: file systems stamp times from a clock that ticks every few
     * ms, and an entry made within the directory's own tick leaves no
     * trace in its times (docs/clock-core.md says what that leaves). */
    monostamp__os_nap_ns(50 * MS);
    write_file(path_in_dir("state"), "x", 1);
    CHECK(remove(path_in_dir("state")) == 0);
    int64_t before = wall_ns();
    CHECK_OK(open_with(&a, path_in_dir("state"), MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT,
                       1000 * MS));
    CHECK_OK(monostamp_state_file_info(path_in_dir("state"), &info));
    CHECK_GE(info.last_ns, before + 900 * MS);
    monostamp_clock_destroy(&a);
}

int main(void)
{
    RUN(test_the_tightest_promise_is_the_files_bound);
    RUN(test_a_draw_promises_its_bound_to_the_file);
    RUN(test_a_block_is_held_to_the_files_bound);
    RUN(test_the_bound_moves_with_the_sequence);
    RUN(test_info_refuses_what_is_no_state_file);
    RUN(test_a_file_made_first_in_a_private_directory_starts_at_the_real_clock);
    RUN(test_a_file_made_where_one_was_starts_ahead);
    (void)check_remove_tree(dir);
    return check_summary();
}
