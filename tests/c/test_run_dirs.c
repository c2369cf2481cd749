/*
 * test_run_dirs.c: a runner's private directories (monostamp_host.h): the
 * name this process's starts with, and the sweep that removes only the
 * directories of runners that are surely gone, with their files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(_WIN32)
#include <direct.h>
#include <process.h>
#define make_dir(path) _mkdir(path)
#define this_pid() ((long)_getpid())
#else
#include <unistd.h>
#define make_dir(path) mkdir(path, 0700)
#define this_pid() ((long)getpid())
#endif

#include "check.h"
#include "monostamp_host.h"

static char dir[512];

static int exists(const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void make(const char *name, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK_EQ(make_dir(path), 0);
    if (file != NULL) {
        snprintf(path, sizeof path, "%s/%s/%s", dir, name, file);
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL && fclose(f) == 0);
    }
}

static void test_the_prefix_names_this_process(void)
{
    char buf[96], pid[32];
    int n = monostamp_run_dir_prefix(buf, sizeof buf);
    CHECK_GT(n, 0);
    CHECK_EQ((size_t)n, strlen(buf));
    snprintf(pid, sizeof pid, "%s%ld-", MONOSTAMP_RUN_DIR_PREFIX, this_pid());
    CHECK(strncmp(buf, pid, strlen(pid)) == 0);
    CHECK_EQ(buf[n - 1], '-');
    CHECK_RC(monostamp_run_dir_prefix(buf, 5), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_run_dir_prefix(NULL, 0), MONOSTAMP_EINVAL);
}

/* Named on Linux as this process but with a later start time: the pid used
 * again, so that runner is gone; this process's own, a name that is no
 * runner's and a pid alone (not to be judged where /proc tells more) stay. */
static void test_the_sweep_removes_only_gone_runners(void)
{
    char mine[96], later[160], own[160], alone[96];
    long long pid, start, ns;
    CHECK_RC(monostamp_run_dirs_sweep(NULL), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_run_dirs_sweep(""), MONOSTAMP_EINVAL);
    CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "monostamp-run-dirs"), 0);
    CHECK_GT(monostamp_run_dir_prefix(mine, sizeof mine), 0);
    snprintf(alone, sizeof alone, "%s%ld-abc", MONOSTAMP_RUN_DIR_PREFIX, this_pid());
    make(alone, NULL);
    make("monostamp-run-no-such-runner", NULL);
    if (sscanf(mine + strlen(MONOSTAMP_RUN_DIR_PREFIX), "%lld-%lld-%lld-", &pid, &start, &ns) !=
        3) {
        /* No /proc: named by pid alone, and this runner lives. */
        CHECK_EQ(monostamp_run_dirs_sweep(dir), 0);
        CHECK(exists(alone));
    } else {
        snprintf(own, sizeof own, "%sabc", mine);
        snprintf(later, sizeof later, "%s%lld-%lld-%lld-abc", MONOSTAMP_RUN_DIR_PREFIX, pid,
                 start + 1, ns);
        make(own, "state");
        make(later, "state");
        CHECK_EQ(monostamp_run_dirs_sweep(dir), 1);
        CHECK(!exists(later));
        CHECK(exists(own) && exists(alone));
    }
    CHECK(exists("monostamp-run-no-such-runner"));
    (void)check_remove_tree(dir);
}

int main(void)
{
    RUN(test_the_prefix_names_this_process);
    RUN(test_the_sweep_removes_only_gone_runners);
    return check_summary();
}
