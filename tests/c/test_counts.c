/*
 * test_counts.c: what clocks count, published into a state file's counts
 * (monostamp_clock_publish, monostamp_state_file_counts): each count once,
 * by shared clocks at their checkpoints, when they leave and at exit, and
 * read back from a file anyone on it may have written.
 */
#include <errno.h>
#include <pthread.h> /* winpthreads under mingw-w64 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(_WIN32)
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "check.h"
#include "monostamp_host.h"
#include "os.h"
#include "shared_check.h"

#define MS INT64_C(1000000)
#define START INT64_C(946684800000000000) /* 2000-01-01 */

static void fresh_dir(const char *name)
{
    if (dir[0] != '\0')
        (void)check_remove_tree(dir);
    if (check_make_temp_dir(dir, sizeof dir, name) != 0) {
        perror("fresh_dir");
        exit(1);
    }
}

/* A private manual clock at START, strict, with no lead bound. */
static int open_manual(monostamp_clock *clock)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.has_start_ns = 1;
    o.start_ns = START;
    o.max_lead_ns = 0;
    return monostamp_clock_init(clock, &o);
}

/* A strict clock on `path` reading the coarse wall clock, which repeats
 * its reading for a whole tick (a few ms). */
static int open_coarse(monostamp_clock *clock, const char *path)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    o.source = MONOSTAMP_SOURCE_REALTIME_COARSE;
    return monostamp_clock_init(clock, &o);
}

static void draw(monostamp_clock *clock, int n)
{
    for (int i = 0; i < n; i++) {
        int64_t ns;
        CHECK_OK(monostamp_time_ns(clock, &ns));
    }
}

static monostamp_counts counts_of(const char *path)
{
    monostamp_counts c;
    memset(&c, 0xAB, sizeof c);
    int rc = monostamp_state_file_counts(path, &c);
    if (rc != MONOSTAMP_OK) {
        fprintf(stderr, "monostamp_state_file_counts(%s): %d\n", path, rc);
        exit(1);
    }
    return c;
}

/* A frozen source repeats: 10 draws are 1 fresh stamp and 9 repeats; a
 * step back of 1 s is a backward step, and the 3 stamps after it lead
 * their reading by 1 s and 10, 11, 12 ns. */
static void test_a_private_clock_publishes_what_it_counted(void)
{
    monostamp_clock clock;
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(monostamp_state_file_create(path, 0));
    monostamp_counts c = counts_of(path);
    CHECK_EQ(c.stamps, 0);
    CHECK_EQ(c.repeats, 0);
    CHECK_EQ(c.backward_steps, 0);
    CHECK_EQ(c.largest_lead_ns, 0);

    CHECK_OK(open_manual(&clock));
    draw(&clock, 10);
    CHECK_OK(monostamp_manual_advance(&clock, -1000 * MS));
    draw(&clock, 3);
    CHECK_OK(monostamp_clock_publish(&clock, path));
    c = counts_of(path);
    CHECK_EQ(c.stamps, 13);
    CHECK_EQ(c.repeats, 12);
    CHECK_EQ(c.backward_steps, 1);
    /* Its stamps lead its reading by 1 s, but a manual reading is the
     * test's, not real time: no lead is counted. */
    monostamp_stats stats;
    monostamp_clock_stats(&clock, &stats);
    CHECK_EQ(stats.max_lead_ns, 1000 * MS + 12);
    CHECK_EQ(c.largest_lead_ns, 0);

    /* Published once: again adds nothing, and later stamps add their own. */
    CHECK_OK(monostamp_clock_publish(&clock, path));
    CHECK_EQ(counts_of(path).stamps, 13);
    CHECK_OK(monostamp_manual_advance(&clock, 2000 * MS));
    draw(&clock, 2);
    CHECK_OK(monostamp_clock_publish(&clock, path));
    c = counts_of(path);
    CHECK_EQ(c.stamps, 15);
    CHECK_EQ(c.repeats, 13); /* the first after the jump is fresh */
    CHECK_EQ(c.largest_lead_ns, 0);
    monostamp_clock_destroy(&clock);
}

/* The largest lead is over the real clock: a coarse clock's repeats lead
 * their tick and show; a manual clock set a century ahead, then back a
 * year, leads its own reading by a year, and changes nothing. */
static void test_only_a_real_clock_s_lead_is_counted(void)
{
    monostamp_clock real, manual;
    monostamp_stats stats;
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(open_coarse(&real, path));
    draw(&real, 2000); /* a tick holds many: most repeat, and lead it */
    CHECK_OK(monostamp_clock_publish(&real, NULL));
    monostamp_clock_stats(&real, &stats);
    CHECK_GT(stats.max_lead_ns, 0);
    CHECK_EQ(counts_of(path).largest_lead_ns, stats.max_lead_ns);

    CHECK_OK(open_manual(&manual));
    CHECK_OK(monostamp_manual_advance(&manual, INT64_C(100) * 365 * 86400 * 1000 * MS));
    draw(&manual, 3);
    CHECK_OK(monostamp_manual_advance(&manual, INT64_C(-365) * 86400 * 1000 * MS));
    draw(&manual, 3);
    CHECK_OK(monostamp_clock_publish(&manual, path));
    monostamp_counts c = counts_of(path);
    CHECK_EQ(c.stamps, stats.readings + 6);
    CHECK_EQ(c.backward_steps, stats.backward_steps + 1);
    CHECK_EQ(c.largest_lead_ns, stats.max_lead_ns);
    monostamp_clock_destroy(&manual);
    monostamp_clock_destroy(&real);
}

static void test_publish_refuses_what_it_cannot_use(void)
{
    monostamp_clock clock;
    fresh_dir("monostamp-counts");
    CHECK_OK(open_manual(&clock));
    draw(&clock, 2);
    CHECK_RC(monostamp_clock_publish(&clock, NULL), MONOSTAMP_ENOTSUP);
    CHECK_RC(monostamp_clock_publish(&clock, ""), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_clock_publish(NULL, path_in_dir("state")), MONOSTAMP_EINVAL);
    /* No file there: an error, and none made. */
    CHECK(monostamp_clock_publish(&clock, path_in_dir("state")) != MONOSTAMP_OK);
    monostamp_counts c;
    CHECK(monostamp_state_file_counts(path_in_dir("state"), &c) != MONOSTAMP_OK);
    write_file(path_in_dir("text"), "not a state file, 128 bytes long? no.", 37);
    CHECK(monostamp_clock_publish(&clock, path_in_dir("text")) != MONOSTAMP_OK);
    CHECK_RC(monostamp_state_file_counts(path_in_dir("text"), &c), MONOSTAMP_EFOREIGN);
    CHECK_RC(monostamp_state_file_counts(NULL, &c), MONOSTAMP_EINVAL);
    monostamp_clock_destroy(&clock);
    CHECK_RC(monostamp_clock_publish(&clock, path_in_dir("state")), MONOSTAMP_EINVAL);
}

/* Two realtime clocks on one file: what each counted, summed, once they
 * leave it, and nothing a clock counted before it joined. */
static void test_shared_clocks_publish_when_they_leave(void)
{
    monostamp_clock a, b;
    monostamp_stats sa, sb;
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(open_coarse(&a, path));
    CHECK_OK(open_coarse(&b, path));
    for (int i = 0; i < 5000; i++) {
        draw(&a, 1);
        draw(&b, 1);
    }
    monostamp_clock_stats(&a, &sa);
    monostamp_clock_stats(&b, &sb);
    monostamp_clock_destroy(&a);
    monostamp_clock_destroy(&b);
    monostamp_counts c = counts_of(path);
    CHECK_EQ(c.stamps, 10000);
    CHECK_EQ(c.repeats, sa.duplicates + sb.duplicates);
    CHECK_EQ(c.backward_steps, sa.backward_steps + sb.backward_steps);
    CHECK_EQ(c.largest_lead_ns, sa.max_lead_ns > sb.max_lead_ns ? sa.max_lead_ns : sb.max_lead_ns);
    CHECK_GT(c.repeats, 0); /* a coarse reading repeats for a tick */
}

/* A shared clock publishes at its checkpoint, a few ms of readings apart,
 * without leaving: everything it counted before that stamp. */
static void test_a_checkpoint_publishes(void)
{
    monostamp_clock a;
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(open_shared(&a, path));
    draw(&a, 100);
    monostamp__os_nap_ns(20 * MS); /* past the next checkpoint (5 ms) */
    draw(&a, 1);
    CHECK_EQ(counts_of(path).stamps, 100);
    CHECK_OK(monostamp_clock_publish(&a, NULL));
    CHECK_EQ(counts_of(path).stamps, 101);
    monostamp_clock_destroy(&a);
    CHECK_EQ(counts_of(path).stamps, 101);
}

struct publisher {
    monostamp_clock *clock;
    const char *path;
    atomic_int *go;
    int failed;
};

static void *publish_in_thread(void *arg)
{
    struct publisher *p = arg;
    while (!atomic_load(p->go))
        ; /* all start together, while the clock's thread stamps */
    p->failed = 0;
    for (int i = 0; i < 200; i++)
        p->failed |= monostamp_clock_publish(p->clock, p->path) != MONOSTAMP_OK;
    return NULL;
}

/* Threads publishing one clock at once add each count once; its own
 * thread stamps meanwhile, and all it counted is in the file after. */
static void test_threads_publish_each_count_once(void)
{
    enum { THREADS = 4 };
    monostamp_clock clock;
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(monostamp_state_file_create(path, 0));
    CHECK_OK(open_manual(&clock));
    atomic_int go = 0;
    pthread_t ids[THREADS];
    struct publisher p[THREADS];
    for (int t = 0; t < THREADS; t++) {
        p[t] = (struct publisher){&clock, path, &go, 0};
        CHECK_EQ(pthread_create(&ids[t], NULL, publish_in_thread, &p[t]), 0);
    }
    atomic_store(&go, 1);
    draw(&clock, 3000);
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ(pthread_join(ids[t], NULL), 0);
        CHECK_EQ(p[t].failed, 0);
    }
    CHECK_OK(monostamp_clock_publish(&clock, path));
    monostamp_counts c = counts_of(path);
    CHECK_EQ(c.stamps, 3000);
    CHECK_EQ(c.repeats, 2999);
    monostamp_clock_destroy(&clock);
}

/* The counts are numbers anyone on the file may write: read as they are,
 * the lead capped to an int64_t, and a sum at the top wraps. */
static void test_hostile_counts_are_only_numbers(void)
{
    monostamp_clock clock;
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(monostamp_state_file_create(path, 0));
    unsigned char bytes[128];
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    CHECK_EQ(fread(bytes, 1, sizeof bytes, f), sizeof bytes);
    memset(bytes + 16, 0xFF, 32); /* the four counts */
    CHECK_EQ(fseek(f, 0, SEEK_SET), 0);
    CHECK_EQ(fwrite(bytes, 1, sizeof bytes, f), sizeof bytes);
    CHECK_EQ(fclose(f), 0);
    monostamp_counts c = counts_of(path);
    CHECK_EQ(c.stamps, UINT64_MAX);
    CHECK_EQ(c.largest_lead_ns, INT64_MAX);

    CHECK_OK(open_manual(&clock));
    draw(&clock, 3);
    CHECK_OK(monostamp_clock_publish(&clock, path));
    c = counts_of(path);
    CHECK_EQ(c.stamps, 2);
    CHECK_EQ(c.repeats, 1);
    CHECK_EQ(c.largest_lead_ns, INT64_MAX);
    /* The sequence itself is untouched by the counts. */
    monostamp_state_info info;
    CHECK_OK(monostamp_state_file_info(path, &info));
    CHECK_EQ(info.last_ns, INT64_MIN);
    monostamp_clock_destroy(&clock);
}

/* A process whose default clock is on the file publishes at exit();
 * what it counted before it joined is not the file's. */
static void test_the_default_clock_publishes_at_exit(void)
{
#if defined(_WIN32)
    SKIP("no fork() to make a process that exits");
#else
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(monostamp_state_file_create(path, 0));
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int64_t ns;
        int bad = 0;
        for (int i = 0; i < 7; i++)
            bad |= monostamp_default_time_ns(&ns) != MONOSTAMP_OK;
        bad |= monostamp_default_share(path) != MONOSTAMP_OK;
        for (int i = 0; i < 25; i++)
            bad |= monostamp_default_time_ns(&ns) != MONOSTAMP_OK;
        exit(bad);
    }
    int status;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    CHECK_EQ(counts_of(path).stamps, 25);
#endif
}

/* A fork() child's counters start as a copy of its parent's: what the
 * parent counted before the fork is published once, not by both. */
static void test_a_fork_child_does_not_publish_its_parents_counts(void)
{
#if defined(_WIN32)
    SKIP("no fork()");
#else
    fresh_dir("monostamp-counts");
    const char *path = path_in_dir("state");
    CHECK_OK(monostamp_state_file_create(path, 0));
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        /* The parent of this test: its default clock on the file. */
        int64_t ns;
        int bad = monostamp_default_share(path) != MONOSTAMP_OK;
        for (int i = 0; i < 30; i++)
            bad |= monostamp_default_time_ns(&ns) != MONOSTAMP_OK;
        pid_t child = fork();
        if (child == 0) {
            for (int i = 0; i < 5; i++)
                bad |= monostamp_default_time_ns(&ns) != MONOSTAMP_OK;
            exit(bad);
        }
        int status;
        bad |= child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
               WEXITSTATUS(status) != 0;
        exit(bad);
    }
    int status;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    CHECK_EQ(counts_of(path).stamps, 35);
#endif
}

/* The line of a file's counts: grouped, singular or plural, the lead in
 * its largest unit; taken apart between two reads, wrapping, with the
 * lead only when something was counted between. */
static void test_the_counts_line(void)
{
    char buf[256];
    monostamp_counts one = {1, 0, 1, 0}, many = {20271, 20013, 2, 1000000012};
    monostamp_counts before = {10, 5, 0, 3}, fewer = {4, 5, 0, 3}, more = {11, 5, 0, 3};
    CHECK_GT(monostamp_counts_text(NULL, &one, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "monostamp: 1 stamp handed out, 0 would have repeated without monostamp, "
                      "1 backward step met, largest lead 0 ns");
    CHECK_GT(monostamp_counts_text(NULL, &many, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "monostamp: 20,271 stamps handed out, 20,013 would have repeated without "
                      "monostamp, 2 backward steps met, largest lead 1.000000012 s");
    many.largest_lead_ns = 2000001;
    CHECK_GT(monostamp_counts_text(NULL, &many, buf, sizeof buf), 0);
    CHECK(strstr(buf, "largest lead 2.000001 ms") != NULL);
    many.largest_lead_ns = 1500;
    CHECK_GT(monostamp_counts_text(NULL, &many, buf, sizeof buf), 0);
    CHECK(strstr(buf, "largest lead 1.500 us") != NULL);
    CHECK_GT(monostamp_counts_text(&before, &fewer, buf, sizeof buf), 0);
    CHECK(strncmp(buf, "monostamp: 18,446,744,073,709,551,610 stamps", 44) == 0);
    CHECK_GT(monostamp_counts_text(&before, &before, buf, sizeof buf), 0);
    CHECK(strstr(buf, "0 stamps handed out") != NULL && strstr(buf, "lead 0 ns") != NULL);
    CHECK_GT(monostamp_counts_text(&before, &more, buf, sizeof buf), 0);
    CHECK(strstr(buf, "1 stamp handed out") != NULL && strstr(buf, "lead 3 ns") != NULL);
    CHECK_RC(monostamp_counts_text(NULL, &one, buf, 10), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_counts_text(NULL, NULL, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_counts_text(NULL, &one, NULL, 0), MONOSTAMP_EINVAL);
}

int main(void)
{
    RUN(test_the_counts_line);
    RUN(test_a_private_clock_publishes_what_it_counted);
    RUN(test_only_a_real_clock_s_lead_is_counted);
    RUN(test_publish_refuses_what_it_cannot_use);
    RUN(test_shared_clocks_publish_when_they_leave);
    RUN(test_a_checkpoint_publishes);
    RUN(test_threads_publish_each_count_once);
    RUN(test_hostile_counts_are_only_numbers);
    RUN(test_the_default_clock_publishes_at_exit);
    RUN(test_a_fork_child_does_not_publish_its_parents_counts);
    (void)check_remove_tree(dir);
    return check_summary();
}
