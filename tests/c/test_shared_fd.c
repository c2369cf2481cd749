/* test_shared_fd.c: a shared clock whose directory descriptor is taken
 * from under it, as a daemon does when it closes every descriptor it did
 * not open (os.closerange, close_range, python-daemon) and the number is
 * then handed to another directory.  The clock must never make or map a
 * state file in that other directory: it finds its own again by its path,
 * stays on one sequence there, and never closes a number that is no longer
 * its own.  And monostamp__os_place_pristine: which directories can have
 * held no earlier state file. */
#if !defined(_WIN32)
#define _GNU_SOURCE 1 /* statx, O_PATH: this test reads what the core reads */
#endif
#include <stdio.h>

#include "check.h"
#include "monostamp.h"

#if !defined(_WIN32)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "os.h"

enum { ROUNDS = 20, THREADS = 8 };
/* A clock looks at its file every 5 ms of its readings: stamping for 4
 * times that makes sure it has looked after a change. */
#define LOOKS_NS INT64_C(20000000)
/* How long a round may take on a machine whose cores are all busy before
 * it counts as stuck: generous, never reached when things work. */
#define STUCK_NS INT64_C(30000000000)

static char base[256];

static const char *in_base(const char *name)
{
    static char path[2][400];
    static int which;
    which ^= 1;
    snprintf(path[which], sizeof path[which], "%s/%s", base, name);
    return path[which];
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int open_clock(monostamp_clock *clock, const char *path)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    return monostamp_clock_init(clock, &o);
}

/* How many descriptors of this process name the directory at `path`
 * (device and inode), and in *lowest the lowest of them or -1: the clock's
 * pinned one, since the test holds none of its own there.  -1 if the
 * directory or /proc/self/fd cannot be read. */
static int descriptors_on(const char *path, int *lowest)
{
    struct stat want, st;
    int n = 0;
    *lowest = -1;
    if (stat(path, &want) != 0)
        return -1;
    DIR *fds = opendir("/proc/self/fd");
    if (fds == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(fds)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end != '\0' || end == e->d_name || fd == dirfd(fds))
            continue;
        if (fstat((int)fd, &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino) {
            n++;
            if (*lowest < 0 || fd < *lowest)
                *lowest = (int)fd;
        }
    }
    closedir(fds);
    return n;
}

/* The lowest descriptor of this process on the directory at `path`, or -1. */
static int descriptor_of(const char *path)
{
    int lowest;
    (void)descriptors_on(path, &lowest);
    return lowest;
}

/* How many descriptors of this process name the directory at `path`. */
static int count_on(const char *path)
{
    int lowest;
    return descriptors_on(path, &lowest);
}

/* The entries of a directory, "." and ".." aside; -1 if unreadable. */
static int entries_in(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* The state file's last stamp (offset 64), or INT64_MIN if unreadable. */
static int64_t last_in_file(const char *path)
{
    int64_t last = INT64_MIN;
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        if (pread(fd, &last, sizeof last, 64) != (ssize_t)sizeof last)
            last = INT64_MIN;
        close(fd);
    }
    return last;
}

/* Closes the clock's descriptor on `dir` and gives its number to an open
 * of `other` (O_PATH, as the clock's own are, or plain): the number then
 * names another directory.  The number, or -1. */
static int steal_descriptor(const char *dir, const char *other, int as_path)
{
    int fd = descriptor_of(dir);
    if (fd < 0)
        return -1;
    close(fd);
    int reused = open(other, (as_path ? O_PATH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC);
    if (reused < 0)
        return -1;
    if (reused != fd) {
        if (dup2(reused, fd) != fd)
            return -1;
        close(reused);
    }
    return fd;
}

/* Stamps until the clock's readings have passed LOOKS_NS and the state
 * file at `path` holds the clock's last stamp (it is on that file), each
 * stamp above the one before.  0, or -1 (a stamp failed or went back, or
 * it never got there). */
static int stamp_until_on(monostamp_clock *clock, const char *path, int64_t *last)
{
    int64_t start = monotonic_ns(), ns;
    for (;;) {
        if (monostamp_time_ns(clock, &ns) != MONOSTAMP_OK || ns <= *last)
            return -1;
        *last = ns;
        int64_t spent = monotonic_ns() - start;
        if (spent >= LOOKS_NS && last_in_file(path) == ns)
            return 0;
        if (spent >= STUCK_NS)
            return -1;
    }
}

static void test_a_descriptor_given_to_another_directory(void)
{
    monostamp_clock clock;
    int64_t last = INT64_MIN;
    CHECK_EQ(check_make_temp_dir(base, sizeof base, "monostamp-fd"), 0);
    char dir[400], other[400], state[400];
    snprintf(dir, sizeof dir, "%s", in_base("d"));
    snprintf(other, sizeof other, "%s", in_base("other"));
    snprintf(state, sizeof state, "%s", in_base("d/state"));
    CHECK_EQ(mkdir(dir, 0700), 0);
    CHECK_EQ(mkdir(other, 0700), 0);
    CHECK_OK(open_clock(&clock, state));
    CHECK_EQ(stamp_until_on(&clock, state, &last), 0);
    for (int round = 0; round < ROUNDS; round++) {
        /* Half the rounds the number goes to an O_PATH descriptor, as the
         * clock's own are: only its device and inode tell it apart. */
        int stolen = steal_descriptor(dir, other, round % 2 == 0);
        CHECK_GE(stolen, 0);
        /* The file replaced: deleted (the clock makes it anew), or a new
         * one renamed over it. */
        if (round % 4 < 2) {
            CHECK_EQ(unlink(state), 0);
        } else {
            char fresh[400];
            snprintf(fresh, sizeof fresh, "%s", in_base("fresh"));
            CHECK_OK(monostamp_state_file_create(fresh, 0));
            CHECK_EQ(rename(fresh, state), 0);
        }
        int on = stamp_until_on(&clock, state, &last);
        int stray = entries_in(other);
        close(stolen);
        if (on != 0 || stray != 0)
            printf("  round %d: on the file: %s; entries in the other directory: %d\n", round,
                   on == 0 ? "yes" : "no", stray);
        CHECK_EQ(on, 0);
        CHECK_EQ(stray, 0);
        /* The clock holds one descriptor on its directory again. */
        CHECK_EQ(count_on(dir), 1);
    }
    /* A newcomer joins the same sequence, above everything. */
    monostamp_clock joiner;
    int64_t joined;
    CHECK_OK(open_clock(&joiner, state));
    CHECK_OK(monostamp_time_ns(&joiner, &joined));
    CHECK_GT(joined, last);
    monostamp_clock_destroy(&joiner);
    monostamp_clock_destroy(&clock);
    CHECK_EQ(count_on(dir), 0);
    check_remove_tree(base);
}

static void test_a_number_reused_for_the_same_directory_stays_its_owners(void)
{
    monostamp_clock clock;
    int64_t last = INT64_MIN;
    CHECK_EQ(check_make_temp_dir(base, sizeof base, "monostamp-fd"), 0);
    char state[400];
    snprintf(state, sizeof state, "%s", in_base("state"));
    CHECK_OK(open_clock(&clock, state));
    CHECK_EQ(stamp_until_on(&clock, state, &last), 0);
    /* Someone else's descriptor on the clock's very directory (not
     * O_PATH) gets the number: the clock may not close it. */
    int stolen = steal_descriptor(base, base, 0);
    CHECK_GE(stolen, 0);
    CHECK_EQ(unlink(state), 0);
    CHECK_EQ(stamp_until_on(&clock, state, &last), 0);
    monostamp_clock_destroy(&clock);
    CHECK(fcntl(stolen, F_GETFD) != -1);
    CHECK_EQ(count_on(base), 1); /* that one alone */
    close(stolen);
    check_remove_tree(base);
}

static void test_a_directory_gone_with_its_descriptor_is_not_replaced(void)
{
    monostamp_clock clock;
    int64_t last = INT64_MIN, ns = 0;
    CHECK_EQ(check_make_temp_dir(base, sizeof base, "monostamp-fd"), 0);
    char dir[400], away[400], other[400], state[400];
    snprintf(dir, sizeof dir, "%s", in_base("d"));
    snprintf(away, sizeof away, "%s", in_base("d.away"));
    snprintf(other, sizeof other, "%s", in_base("other"));
    snprintf(state, sizeof state, "%s", in_base("d/state"));
    CHECK_EQ(mkdir(dir, 0700), 0);
    CHECK_EQ(mkdir(other, 0700), 0);
    CHECK_OK(open_clock(&clock, state));
    CHECK_EQ(stamp_until_on(&clock, state, &last), 0);
    int stolen = steal_descriptor(dir, other, 1);
    CHECK_GE(stolen, 0);
    /* The path now leads nowhere: the clock cannot find its directory, so
     * it stays on the state it has mapped, and makes nothing elsewhere. */
    CHECK_EQ(rename(dir, away), 0);
    int64_t start = monotonic_ns();
    while (monotonic_ns() - start < LOOKS_NS) {
        CHECK_OK(monostamp_time_ns(&clock, &ns));
        CHECK_GT(ns, last);
        last = ns;
    }
    CHECK_EQ(entries_in(other), 0);
    close(stolen);
    monostamp_clock_destroy(&clock);
    check_remove_tree(base);
}

/* Threads that all find the place's descriptor lost at once: each gets the
 * file's id through its own directory, and one descriptor is left. */
struct racer {
    const monostamp__os_place *place;
    pthread_barrier_t *barrier;
    monostamp__os_file_id id;
    int rc;
};

static void *race_pinned_id(void *arg)
{
    struct racer *r = arg;
    pthread_barrier_wait(r->barrier);
    r->rc = monostamp__os_place_pinned_id(r->place, &r->id);
    return NULL;
}

static void test_threads_that_find_it_lost_at_once_put_one_in(void)
{
    monostamp__os_place *place;
    monostamp__os_file_id want;
    pthread_barrier_t barrier;
    pthread_t threads[THREADS];
    struct racer racers[THREADS];
    void *map;
    char initial[128] = "any bytes";
    CHECK_EQ(check_make_temp_dir(base, sizeof base, "monostamp-fd"), 0);
    char dir[400], other[400];
    snprintf(dir, sizeof dir, "%s", in_base("d"));
    snprintf(other, sizeof other, "%s", in_base("other"));
    CHECK_EQ(mkdir(dir, 0700), 0);
    CHECK_EQ(mkdir(other, 0700), 0);
    CHECK_OK(monostamp__os_place_pin(in_base("d/state"), &place));
    CHECK_OK(monostamp__os_map_place(place, initial, sizeof initial, 0, NULL, &map, &want));
    monostamp__os_unmap(map, sizeof initial);
    for (int round = 0; round < ROUNDS; round++) {
        int stolen = steal_descriptor(dir, other, 1);
        CHECK_GE(stolen, 0);
        CHECK_EQ(pthread_barrier_init(&barrier, NULL, THREADS), 0);
        for (int i = 0; i < THREADS; i++) {
            racers[i].place = place;
            racers[i].barrier = &barrier;
            racers[i].rc = -1;
            CHECK_EQ(pthread_create(&threads[i], NULL, race_pinned_id, &racers[i]), 0);
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(threads[i], NULL);
        pthread_barrier_destroy(&barrier);
        for (int i = 0; i < THREADS; i++) {
            CHECK_OK(racers[i].rc);
            CHECK_EQ(racers[i].id.ino, want.ino);
        }
        CHECK_EQ(count_on(dir), 1);
        CHECK_EQ(entries_in(other), 0);
        close(stolen);
    }
    monostamp__os_place_free(place);
    CHECK_EQ(count_on(dir), 0);
    check_remove_tree(base);
}

/* ------------------------------------------------------------ pristine */

/* The directory's birth and modification times, if its file system
 * reports a birth time: 1, else 0. */
static int times_of(const char *path, struct statx_timestamp *birth,
                    struct statx_timestamp *modified)
{
    struct statx sx;
    if (statx(AT_FDCWD, path, 0, STATX_BTIME | STATX_MTIME, &sx) != 0 ||
        !(sx.stx_mask & STATX_BTIME))
        return 0;
    *birth = sx.stx_btime;
    *modified = sx.stx_mtime;
    return 1;
}

/* Waits until the file system's clock (the coarse one: a change is stamped
 * with it) has passed `t`, so that a change made now gets a later time
 * than `t`: a condition waited for, not a guess at how long it takes. */
static int wait_past(struct statx_timestamp t)
{
    int64_t start = monotonic_ns();
    for (;;) {
        struct timespec now, nap = {0, 1000000};
        clock_gettime(CLOCK_REALTIME_COARSE, &now);
        if (now.tv_sec > t.tv_sec || (now.tv_sec == t.tv_sec && now.tv_nsec > (long)t.tv_nsec))
            return 0;
        if (monotonic_ns() - start > STUCK_NS)
            return -1;
        nanosleep(&nap, NULL);
    }
}

static int pristine_at(const char *dir)
{
    char path[600];
    monostamp__os_place *place;
    snprintf(path, sizeof path, "%s/state", dir);
    if (monostamp__os_place_pin(path, &place) != MONOSTAMP_OK)
        return -1;
    int pristine = monostamp__os_place_pristine(place);
    monostamp__os_place_free(place);
    return pristine;
}

/* Under `root` (a directory of one file system). */
static void pristine_under(const char *root)
{
    char dir[300], file[400];
    struct statx_timestamp birth, modified;
    int len = snprintf(dir, sizeof dir, "%s/monostamp-pristine-XXXXXX", root);
    CHECK(len > 0 && (size_t)len < sizeof dir);
    CHECK(mkdtemp(dir) != NULL);
    if (!times_of(dir, &birth, &modified)) {
        char why[400];
        snprintf(why, sizeof why, "the file system of %s reports no birth time", root);
        check_remove_tree(dir);
        SKIP_PART(why);
        return;
    }
    /* Just made, mode 0700, empty. */
    CHECK_EQ(pristine_at(dir), 1);
    /* Open to the group: anyone in it could have put a file there. */
    CHECK_EQ(chmod(dir, 0750), 0);
    CHECK_EQ(pristine_at(dir), 0);
    CHECK_EQ(chmod(dir, 0755), 0);
    CHECK_EQ(pristine_at(dir), 0);
    CHECK_EQ(chmod(dir, 0700), 0);
    CHECK_EQ(pristine_at(dir), 1); /* a mode change is no entry */
    /* A file made and removed: empty again, but not as it was born. */
    CHECK_EQ(wait_past(birth), 0);
    snprintf(file, sizeof file, "%s/earlier", dir);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    CHECK_GE(fd, 0);
    close(fd);
    CHECK_EQ(unlink(file), 0);
    CHECK(times_of(dir, &birth, &modified));
    CHECK(birth.tv_sec != modified.tv_sec || birth.tv_nsec != modified.tv_nsec); /* premise */
    CHECK_EQ(entries_in(dir), 0);
    CHECK_EQ(pristine_at(dir), 0);
    check_remove_tree(dir);
}

static void test_pristine_directories(void)
{
    int roots = 0;
    struct stat st;
    const char *candidates[] = {"/tmp", "/dev/shm"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (stat(candidates[i], &st) != 0 || !S_ISDIR(st.st_mode) ||
            access(candidates[i], W_OK) != 0)
            continue;
        int failed_before = check_failed_now;
        pristine_under(candidates[i]);
        if (check_failed_now && !failed_before) {
            printf("  under %s\n", candidates[i]);
            return;
        }
        roots++;
    }
    CHECK_GT(roots, 0);
}

static void test_pristine_through_a_lost_descriptor(void)
{
    monostamp__os_place *place;
    CHECK_EQ(check_make_temp_dir(base, sizeof base, "monostamp-fd"), 0);
    struct statx_timestamp birth, modified;
    char dir[400], other[400];
    snprintf(dir, sizeof dir, "%s", in_base("d"));
    snprintf(other, sizeof other, "%s", in_base("other"));
    CHECK_EQ(mkdir(dir, 0700), 0);
    if (!times_of(dir, &birth, &modified)) {
        check_remove_tree(base);
        SKIP("the file system of /tmp reports no birth time");
    }
    /* `other` is pristine, `d` is not; the place is on `d` and its number
     * goes to `other`: the answer is still `d`'s. */
    CHECK_EQ(wait_past(birth), 0);
    CHECK_EQ(mkdir(other, 0700), 0);
    CHECK_EQ(mkdir(in_base("d/sub"), 0700), 0);
    CHECK_EQ(pristine_at(other), 1);
    CHECK_OK(monostamp__os_place_pin(in_base("d/state"), &place));
    CHECK_EQ(monostamp__os_place_pristine(place), 0);
    int stolen = steal_descriptor(dir, other, 1);
    CHECK_GE(stolen, 0);
    CHECK_EQ(monostamp__os_place_pristine(place), 0);
    close(stolen);
    monostamp__os_place_free(place);
    check_remove_tree(base);
}
#else
static void test_a_descriptor_given_to_another_directory(void)
{
    SKIP("places are pinned by full path, with no descriptor to lose");
}
#endif

int main(void)
{
#if !defined(_WIN32)
    RUN(test_a_descriptor_given_to_another_directory);
    RUN(test_a_number_reused_for_the_same_directory_stays_its_owners);
    RUN(test_a_directory_gone_with_its_descriptor_is_not_replaced);
    RUN(test_threads_that_find_it_lost_at_once_put_one_in);
    RUN(test_pristine_directories);
    RUN(test_pristine_through_a_lost_descriptor);
#else
    RUN(test_a_descriptor_given_to_another_directory);
#endif
    return check_summary();
}
