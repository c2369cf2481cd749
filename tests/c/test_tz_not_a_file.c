/* test_tz_not_a_file.c: TZ naming something that is there but is no
 * regular file (a FIFO, a device, a directory).  The C library would open
 * it blocking in tzset(), so the engine must never hand it over: the local
 * zone is UTC, as for a zone nobody can read, and the stamp returns at
 * once.  Each case runs in a child that the parent kills after a second,
 * so a hang is a failure, not a hung test run. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if !defined(_WIN32)
#include <sys/wait.h>
#endif

#include "check.h"
#include "monostamp.h"

#if !defined(_WIN32)
static char dir[256];

/* In a child: TZ=`tz`, then one stamp of the default clock and one offset
 * of the local zone.  0 if both answered UTC. */
static int child_stamps_with(const char *tz)
{
    monostamp_stamp stamp;
    monostamp_zone *local;
    int32_t off = 1;
    setenv("TZ", tz, 1);
    monostamp_zone_changed();
    if (monostamp_default_now(&stamp) != 0 || stamp.offset_s != 0)
        return 1;
    if (monostamp_zone_open(NULL, &local) != 0 ||
        monostamp_zone_offset(local, stamp.utc_ns, &off) != 0 || off != 0)
        return 2;
    return 0;
}

/* The child's exit code, or -1 if it was still running after a second
 * (then it is killed). */
static int run_within_a_second(const char *tz)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(child_stamps_with(tz));
    if (pid < 0)
        return -2;
    int status = 0;
    int64_t deadline = monostamp_monotonic_ns() + INT64_C(1000000000);
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (monostamp_monotonic_ns() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        usleep(5000);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -3;
}

static void test_tz_naming_a_fifo_returns_at_once(void)
{
    char fifo[300], bare[310];
    const char *tsan = getenv("MONOSTAMP_TEST_TSAN");
    if (tsan != NULL && tsan[0] != '\0')
        return; /* TSan and fork do not mix */
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK_EQ(mkfifo(fifo, 0600), 0);
    CHECK_EQ(run_within_a_second(fifo), 0);
    snprintf(bare, sizeof bare, ":%s", fifo); /* glibc's "file" prefix */
    CHECK_EQ(run_within_a_second(bare), 0);
    /* Relative to TZDIR, as a zone name. */
    setenv("TZDIR", dir, 1);
    CHECK_EQ(run_within_a_second("fifo"), 0);
    unsetenv("TZDIR");
    unlink(fifo);
}

static void test_tz_naming_a_device_or_a_directory(void)
{
    const char *tsan = getenv("MONOSTAMP_TEST_TSAN");
    if (tsan != NULL && tsan[0] != '\0')
        return;
    CHECK_EQ(run_within_a_second("/dev/null"), 0);
    CHECK_EQ(run_within_a_second(dir), 0);
}

#else
static void test_tz_naming_a_fifo_returns_at_once(void)
{
    SKIP("no FIFOs in the file system, no fork(); the C runtime reads no zone files");
}
#endif

int main(void)
{
#if !defined(_WIN32)
    if (check_make_temp_dir(dir, sizeof dir, "monostamp-tz") != 0) {
        perror("test_tz_not_a_file setup");
        return 1;
    }
#endif
    RUN(test_tz_naming_a_fifo_returns_at_once);
#if !defined(_WIN32)
    RUN(test_tz_naming_a_device_or_a_directory);
    check_remove_tree(dir);
#endif
    return check_summary();
}
