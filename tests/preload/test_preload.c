/*
 * test_preload.c: libmonostamp_preload.so in C processes (docs/preload.md).
 * Run by tests/preload/run.sh with the library in LD_PRELOAD and
 * MONOSTAMP_SHARED naming a state file in a fresh directory; each check
 * fails without the library (gettimeofday's µs repeat, the stampers'
 * readings collide), and the first check says whether it is loaded at all.
 *
 *   test_preload DIR [check...]   DIR: a fresh directory for the files
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "preload_check.h"

extern char **environ;
static const char *dir, *self;
static char stamper[4096];

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* No value twice among all the readings. */
static void check_distinct(const char *what, int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp64);
    for (size_t i = 1; i < n; i++)
        CHECK(v[i] != v[i - 1], "%s: %lld read twice", what, (long long)v[i]);
}

static pid_t spawn(char *const argv[])
{
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
    CHECK(rc == 0, "spawning %s: %s", argv[0], strerror(rc));
    return pid;
}

static void reap(pid_t pid, const char *what)
{
    int status;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed (status %d)", what, status);
}

/* ---------------------------------------------------------- the checks */

static void loaded(void)
{
    CHECK(dlsym(RTLD_DEFAULT, "monostamp_preload_next_clock_gettime") != NULL,
          "libmonostamp_preload.so is not loaded (LD_PRELOAD=%s)",
          getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
    printf("ok loaded\n");
}

/* 4 processes at once on one state file, 200,000 readings each. */
static void four_processes(void)
{
    static const char *modes[4] = {"clock_gettime", "clock_gettime", "gettimeofday", "timespec_get"};
    char out[4][4096], prefix[4096], n[32], id[4][8];
    pid_t pids[4];
    snprintf(prefix, sizeof prefix, "%s/meet4-", dir);
    snprintf(n, sizeof n, "%d", 200000);
    for (int i = 0; i < 4; i++) {
        snprintf(out[i], sizeof out[i], "%s/four-%d", dir, i);
        snprintf(id[i], sizeof id[i], "%d", i + 1);
        char *argv[] = {stamper, (char *)modes[i], n, out[i], prefix, id[i], "4", NULL};
        pids[i] = spawn(argv);
    }
    int64_t *all = NULL;
    size_t total = 0;
    for (int i = 0; i < 4; i++) {
        size_t got;
        reap(pids[i], modes[i]);
        int64_t *v = read_values(out[i], &got);
        CHECK(got == 200000, "%s wrote %zu readings", modes[i], got);
        check_increasing(modes[i], v, got);
        all = realloc(all, (total + got) * sizeof *all);
        memcpy(all + total, v, got * sizeof *v);
        total += got;
        free(v);
    }
    check_distinct("4 processes", all, total);
    free(all);
    printf("ok four processes: 4 x 200000 readings, none equal, each increasing\n");
}

/* A handler reading the clock while the main thread stamps: alarm(10) kills
 * the process if either ever waits for the other. */
static _Atomic int stop;
static int64_t handler_values[100000];
static _Atomic size_t handler_n;
static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    size_t i = atomic_load(&handler_n);
    if (i < sizeof handler_values / sizeof *handler_values) {
        handler_values[i] = read_by("clock_gettime");
        atomic_store(&handler_n, i + 1);
    }
    errno = saved;
}
static void *signaller(void *main_thread)
{
    while (!atomic_load(&stop)) {
        pthread_kill(*(pthread_t *)main_thread, SIGUSR1);
        usleep(20);
    }
    return NULL;
}
static void signal_handler(void)
{
    enum { N = 400000 };
    static int64_t main_values[N];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
    pthread_t me = pthread_self(), other;
    alarm(10);
    CHECK(pthread_create(&other, NULL, signaller, &me) == 0, "pthread_create");
    for (int i = 0; i < N; i++)
        main_values[i] = read_by("gettimeofday");
    atomic_store(&stop, 1);
    pthread_join(other, NULL);
    alarm(0);
    size_t hn = atomic_load(&handler_n);
    CHECK(hn >= 10, "only %zu signals handled", hn);
    check_increasing("main thread (gettimeofday)", main_values, N);
    check_increasing("signal handler (clock_gettime)", handler_values, hn);
    int64_t *all = malloc((N + hn) * sizeof *all);
    memcpy(all, main_values, sizeof main_values);
    memcpy(all + N, handler_values, hn * sizeof *all);
    check_distinct("main and handler", all, N + hn);
    free(all);
    printf("ok signal handler: %d readings in main, %zu in the handler, no wait, none equal\n", N,
           hn);
}

/* A fork() child and a vfork()+exec'd stamper stamp with the parent. */
static void fork_and_vfork(void)
{
    enum { N = 100000 };
    char prefix[4096], forked[4096], execd[4096], n[32];
    snprintf(prefix, sizeof prefix, "%s/meetf-", dir);
    snprintf(forked, sizeof forked, "%s/forked", dir);
    snprintf(execd, sizeof execd, "%s/vforked", dir);
    snprintf(n, sizeof n, "%d", N);
    static int64_t mine[N];
    pid_t child = fork();
    CHECK(child >= 0, "fork");
    if (child == 0) {
        int64_t *v = malloc(N * sizeof *v);
        meet(prefix, "a", 2, 3);
        for (int i = 0; i < N / 2; i++)
            v[i] = read_by("gettimeofday");
        meet(prefix, "b", 2, 3);
        for (int i = N / 2; i < N; i++)
            v[i] = read_by("gettimeofday");
        write_values(forked, v, N);
        _exit(0);
    }
    char *argv[] = {stamper, "gettimeofday", n, execd, prefix, "3", "3", NULL};
    pid_t vchild = vfork();
    CHECK(vchild >= 0, "vfork");
    if (vchild == 0) {
        execve(stamper, argv, environ);
        _exit(127);
    }
    meet(prefix, "a", 1, 3);
    for (int i = 0; i < N / 2; i++)
        mine[i] = read_by("gettimeofday");
    meet(prefix, "b", 1, 3);
    for (int i = N / 2; i < N; i++)
        mine[i] = read_by("gettimeofday");
    reap(child, "the fork() child");
    reap(vchild, "the vfork()+exec child");
    size_t a, b;
    int64_t *v1 = read_values(forked, &a), *v2 = read_values(execd, &b);
    CHECK(a == N && b == N, "children wrote %zu and %zu readings", a, b);
    check_increasing("parent", mine, N);
    check_increasing("fork() child", v1, a);
    check_increasing("vfork()+exec child", v2, b);
    int64_t *all = malloc(3 * N * sizeof *all);
    memcpy(all, mine, sizeof mine);
    memcpy(all + N, v1, N * sizeof *all);
    memcpy(all + 2 * N, v2, N * sizeof *all);
    check_distinct("parent and children", all, 3 * N);
    free(all), free(v1), free(v2);
    printf("ok fork and vfork+exec: 3 x %d gettimeofday readings, none equal\n", N);
}

/* CLOCK_MONOTONIC is libc's: between two raw system-call readings. */
static void monotonic_untouched(void)
{
    struct timespec a, b, c;
    for (int i = 0; i < 100000; i++) {
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &c);
        int64_t x = a.tv_sec * NS_PER_S + a.tv_nsec, y = b.tv_sec * NS_PER_S + b.tv_nsec,
                z = c.tv_sec * NS_PER_S + c.tv_nsec;
        CHECK(x <= y && y <= z, "CLOCK_MONOTONIC %lld not between raw %lld and %lld",
              (long long)y, (long long)x, (long long)z);
    }
    printf("ok CLOCK_MONOTONIC: 100000 readings, each between two raw system calls\n");
}

/* time() is whole seconds of the sequence: never behind a reading made
 * before it, never ahead of one made after. */
static void time_from_the_sequence(void)
{
    int64_t before = read_by("clock_gettime");
    for (int i = 0; i < 200000; i++) {
        int64_t t = read_by("time"), after = read_by("clock_gettime");
        CHECK(t >= before / NS_PER_S * NS_PER_S && t <= after,
              "time() %lld s outside [%lld, %lld] ns", (long long)(t / NS_PER_S),
              (long long)before, (long long)after);
        before = after;
    }
    printf("ok time(): 200000 readings in step with clock_gettime\n");
}

/* Readings made in another library's constructor, before the preload's own
 * (run with libearly.so after the preload in LD_PRELOAD): increasing, and
 * below main's. */
static void early(void)
{
    int64_t *v = dlsym(RTLD_DEFAULT, "preload_test_early");
    CHECK(v != NULL, "libearly.so is not loaded");
    check_increasing("readings in a constructor before the preload's", v, 64);
    int64_t now = read_by("gettimeofday");
    CHECK(now > v[63], "main's first reading %lld not above the constructor's %lld",
          (long long)now, (long long)v[63]);
    printf("ok before the preload's constructor: 64 readings, increasing, below main's\n");
}

/* libc opened again by dlopen: the calls still answer from the sequence. */
static void dlopen_libc(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_GLOBAL);
    CHECK(libc != NULL, "dlopen(libc.so.6): %s", dlerror());
    int64_t v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = read_by(i % 2 ? "gettimeofday" : "clock_gettime");
    check_increasing("after dlopen(libc.so.6)", v, 1000);
    dlclose(libc);
    printf("ok dlopen(libc.so.6): 1000 mixed readings, increasing\n");
}

int main(int argc, char **argv)
{
    CHECK(argc >= 2, "usage: test_preload DIR [check...]");
    dir = argv[1];
    self = argv[0];
    snprintf(stamper, sizeof stamper, "%s", self);
    char *slash = strrchr(stamper, '/');
    snprintf(slash != NULL ? slash + 1 : stamper,
             sizeof stamper - (size_t)(slash != NULL ? slash + 1 - stamper : 0), "stamper");
    static const struct {
        const char *name;
        void (*run)(void);
    } checks[] = {{"loaded", loaded},
                  {"monotonic", monotonic_untouched},
                  {"time", time_from_the_sequence},
                  {"dlopen", dlopen_libc},
                  {"signal", signal_handler},
                  {"fork", fork_and_vfork},
                  {"four", four_processes},
                  {"early", early}};
    int ran = 0;
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++) {
        int wanted = argc == 2 ? strcmp(checks[i].name, "early") != 0 : 0;
        for (int a = 2; a < argc; a++)
            wanted |= strcmp(argv[a], checks[i].name) == 0;
        if (wanted) {
            checks[i].run();
            ran++;
        }
    }
    printf("%d passed, 0 failed\n", ran);
    return 0;
}
