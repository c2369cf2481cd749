/*
 * test_contract.c: the interposed calls keep libc's contract for every
 * argument (docs/preload.md).  Each row of the table is called twice, each
 * time in a child of its own: once through the preload (the program's own
 * binding) and once through libc's definition (looked up in libc.so.6's own
 * handle: dlsym(RTLD_NEXT) from the program would find the preload, which
 * comes after the program and before libc).  The two outcomes must agree:
 * the return value, errno (a marker set before the call stays on success),
 * what is written (which fields, their ranges, and nothing past them), and
 * the signal a child dies of where libc's call faults.
 *
 *   test_contract DIR [ns|us]   run under the preload, MONOSTAMP_GRAIN as
 *                               the second argument says
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "preload_check.h"

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*timespec_get_fn)(struct timespec *, int);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);

/* Both sides' entry points. */
struct calls {
    clock_gettime_fn clock_gettime;
    timespec_get_fn timespec_get;
    gettimeofday_fn gettimeofday;
    time_fn time;
};
static struct calls preloaded, libc;

enum call { CLOCK_GETTIME, TIMESPEC_GET, GETTIMEOFDAY, TIME };
enum ptr { VALID, NUL, WILD };
/* What a written value must be: a wall-clock reading (near libc's), a
 * reading of a clock libc answers (between libc's before and after), or
 * anything in range (a CPU clock). */
enum kind { WALL, PASSED, ANY };

struct row {
    const char *name;
    enum call call;
    int arg;        /* the clock id or the base */
    enum ptr out;   /* the timespec, timeval or time_t */
    enum ptr zone;  /* gettimeofday's tz */
    enum kind kind;
};

#define WILD_PTR ((void *)8) /* in the never-mapped first page */

static const struct row rows[] = {
    {"clock_gettime(CLOCK_REALTIME, &ts)", CLOCK_GETTIME, CLOCK_REALTIME, VALID, NUL, WALL},
    {"clock_gettime(CLOCK_REALTIME_COARSE, &ts)", CLOCK_GETTIME, CLOCK_REALTIME_COARSE, VALID,
     NUL, WALL},
    {"clock_gettime(CLOCK_MONOTONIC, &ts)", CLOCK_GETTIME, CLOCK_MONOTONIC, VALID, NUL, PASSED},
    {"clock_gettime(CLOCK_BOOTTIME, &ts)", CLOCK_GETTIME, CLOCK_BOOTTIME, VALID, NUL, PASSED},
    {"clock_gettime(CLOCK_TAI, &ts)", CLOCK_GETTIME, CLOCK_TAI, VALID, NUL, PASSED},
    {"clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)", CLOCK_GETTIME, CLOCK_PROCESS_CPUTIME_ID,
     VALID, NUL, ANY},
    {"clock_gettime(12345, &ts)", CLOCK_GETTIME, 12345, VALID, NUL, ANY},
    {"clock_gettime(-1, &ts)", CLOCK_GETTIME, -1, VALID, NUL, ANY},
    {"clock_gettime(12345, NULL)", CLOCK_GETTIME, 12345, NUL, NUL, ANY},
    {"clock_gettime(CLOCK_REALTIME, NULL)", CLOCK_GETTIME, CLOCK_REALTIME, NUL, NUL, ANY},
    {"clock_gettime(CLOCK_REALTIME_COARSE, NULL)", CLOCK_GETTIME, CLOCK_REALTIME_COARSE, NUL,
     NUL, ANY},
    {"clock_gettime(CLOCK_REALTIME, (void *)8)", CLOCK_GETTIME, CLOCK_REALTIME, WILD, NUL, ANY},
    {"clock_gettime(CLOCK_MONOTONIC, NULL)", CLOCK_GETTIME, CLOCK_MONOTONIC, NUL, NUL, ANY},
    {"timespec_get(&ts, TIME_UTC)", TIMESPEC_GET, TIME_UTC, VALID, NUL, WALL},
    {"timespec_get(&ts, 0)", TIMESPEC_GET, 0, VALID, NUL, ANY},
    {"timespec_get(&ts, 2)", TIMESPEC_GET, 2, VALID, NUL, ANY},
    {"timespec_get(&ts, -1)", TIMESPEC_GET, -1, VALID, NUL, ANY},
    {"timespec_get(&ts, 99)", TIMESPEC_GET, 99, VALID, NUL, ANY},
    {"timespec_get(NULL, 2)", TIMESPEC_GET, 2, NUL, NUL, ANY},
    {"timespec_get(NULL, TIME_UTC)", TIMESPEC_GET, TIME_UTC, NUL, NUL, ANY},
    {"gettimeofday(&tv, NULL)", GETTIMEOFDAY, 0, VALID, NUL, WALL},
    {"gettimeofday(&tv, &tz)", GETTIMEOFDAY, 0, VALID, VALID, WALL},
    {"gettimeofday(NULL, NULL)", GETTIMEOFDAY, 0, NUL, NUL, ANY},
    {"gettimeofday(NULL, &tz)", GETTIMEOFDAY, 0, NUL, VALID, ANY},
    {"gettimeofday(NULL, (void *)8)", GETTIMEOFDAY, 0, NUL, WILD, ANY},
    {"gettimeofday((void *)8, NULL)", GETTIMEOFDAY, 0, WILD, NUL, ANY},
    {"time(NULL)", TIME, 0, NUL, NUL, WALL},
    {"time(&t)", TIME, 0, VALID, NUL, WALL},
    {"time((void *)8)", TIME, 0, WILD, NUL, ANY},
};
enum { NROWS = sizeof rows / sizeof *rows };

#define PATTERN 0xA5
#define ERRNO_MARK 4242

/* One call's outcome, written by the child into shared memory. */
struct outcome {
    int returned;      /* the child got back from the call */
    long long rc;      /* its return value */
    int err;           /* errno after it */
    unsigned char out[64], zone[64]; /* the buffers, pattern-filled before */
    int64_t before_ns, after_ns; /* the clock the row reads, around the call (libc's) */
    int status;        /* the child's wait status */
};

static void *ptr_of(enum ptr p, unsigned char *buf)
{
    return p == VALID ? buf : p == NUL ? NULL : WILD_PTR;
}

static int64_t ns_of(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

/* The row's call through `c`, in this (child) process. */
static void call(const struct row *r, const struct calls *c, struct outcome *o)
{
    unsigned char out[64], zone[64];
    struct timespec around;
    clockid_t id = r->call == CLOCK_GETTIME ? (clockid_t)r->arg : CLOCK_REALTIME;
    memset(out, PATTERN, sizeof out);
    memset(zone, PATTERN, sizeof zone);
    if (libc.clock_gettime(id, &around) == 0)
        o->before_ns = ns_of(&around);
    errno = ERRNO_MARK;
    switch (r->call) {
    case CLOCK_GETTIME:
        o->rc = c->clock_gettime(id, ptr_of(r->out, out));
        break;
    case TIMESPEC_GET:
        o->rc = c->timespec_get(ptr_of(r->out, out), r->arg);
        break;
    case GETTIMEOFDAY:
        o->rc = c->gettimeofday(ptr_of(r->out, out), ptr_of(r->zone, zone));
        break;
    case TIME:
        o->rc = (long long)c->time(ptr_of(r->out, out));
        break;
    }
    o->err = errno;
    o->returned = 1;
    if (libc.clock_gettime(id, &around) == 0)
        o->after_ns = ns_of(&around);
    memcpy(o->out, out, sizeof out);
    memcpy(o->zone, zone, sizeof zone);
}

static void run_in_child(const struct row *r, const struct calls *c, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        /* A fault is the outcome to compare, not a failure to report: the
         * default action, and no core file. */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        call(r, c, o);
        _exit(0);
    }
    CHECK(waitpid(pid, &o->status, 0) == pid, "waitpid");
}

static const char *status_text(int status, char *buf, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, size, "exit %d", WEXITSTATUS(status));
    return buf;
}

/* The bytes the call writes for the row, and whether it wrote them. */
static size_t out_size(const struct row *r)
{
    return r->call == GETTIMEOFDAY ? sizeof(struct timeval)
           : r->call == TIME       ? sizeof(time_t)
                                   : sizeof(struct timespec);
}

static int untouched(const unsigned char *buf, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (buf[i] != PATTERN)
            return 0;
    return 1;
}

/* The value written (or, for time(NULL), returned), in ns. */
static int64_t value_ns(const struct row *r, const struct outcome *o)
{
    if (r->call == TIME) {
        if (r->out == VALID) {
            time_t t;
            memcpy(&t, o->out, sizeof t);
            return (int64_t)t * NS_PER_S;
        }
        return (int64_t)o->rc * NS_PER_S;
    }
    if (r->call == GETTIMEOFDAY) {
        struct timeval tv;
        memcpy(&tv, o->out, sizeof tv);
        CHECK(tv.tv_usec >= 0 && tv.tv_usec < 1000000, "tv_usec %ld", (long)tv.tv_usec);
        return (int64_t)tv.tv_sec * NS_PER_S + (int64_t)tv.tv_usec * 1000;
    }
    struct timespec ts;
    memcpy(&ts, o->out, sizeof ts);
    CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < NS_PER_S, "tv_nsec %ld", ts.tv_nsec);
    return ns_of(&ts);
}

static int whole_us_grain;

static void compare(const struct row *r, const struct outcome *p, const struct outcome *l)
{
    char a[64], b[64];
    CHECK(p->status == l->status, "%s: preloaded %s, libc %s", r->name,
          status_text(p->status, a, sizeof a), status_text(l->status, b, sizeof b));
    if (!l->returned) {
        CHECK(!p->returned, "%s: the preloaded call returned where libc's faulted", r->name);
        return; /* both faulted: nothing else to compare */
    }
    CHECK(p->returned, "%s: the preloaded call never returned", r->name);
    if (r->call != TIME || r->kind != WALL)
        CHECK(p->rc == l->rc, "%s: preloaded returned %lld, libc %lld", r->name, p->rc, l->rc);
    CHECK(p->err == l->err, "%s: errno %d preloaded, %d libc (%d: untouched)", r->name, p->err,
          l->err, ERRNO_MARK);
    /* The zone argument: byte for byte what libc writes. */
    CHECK(memcmp(p->zone, l->zone, sizeof p->zone) == 0, "%s: the zone differs from libc's",
          r->name);
    size_t size = out_size(r);
    /* Nothing written past the struct, on either side. */
    CHECK(untouched(p->out, size, sizeof p->out) && untouched(l->out, size, sizeof l->out),
          "%s: written past the %zu bytes of its struct", r->name, size);
    int written_p = !untouched(p->out, 0, size), written_l = !untouched(l->out, 0, size);
    CHECK(written_p == written_l, "%s: preloaded %s, libc %s", r->name,
          written_p ? "wrote" : "wrote nothing", written_l ? "wrote" : "wrote nothing");
    if (!written_l && r->call != TIME)
        return;
    if (r->call == TIME && r->out == VALID)
        CHECK(value_ns(r, p) == p->rc * NS_PER_S, "%s: wrote %lld, returned %lld", r->name,
              (long long)(value_ns(r, p) / NS_PER_S), p->rc);
    if (r->call == TIME && r->out != VALID && r->kind != WALL)
        return;
    int64_t pv = value_ns(r, p), lv = value_ns(r, l);
    switch (r->kind) {
    case WALL:
        /* A stamp of the sequence: at most its lead bound from the real
         * clock, which a fresh directory's file starts at. */
        CHECK(pv >= p->before_ns - NS_PER_S && pv <= p->after_ns + 2 * NS_PER_S,
              "%s: %lld not near the real clock (%lld..%lld)", r->name, (long long)pv,
              (long long)p->before_ns, (long long)p->after_ns);
        (void)lv;
        if (whole_us_grain && r->call != TIME)
            CHECK(pv % 1000 == 0, "%s: %lld is not a whole us at grain us", r->name,
                  (long long)pv);
        break;
    case PASSED:
        /* libc's own clock, untouched: between libc's readings around it. */
        CHECK(pv >= p->before_ns && pv <= p->after_ns, "%s: %lld not between %lld and %lld",
              r->name, (long long)pv, (long long)p->before_ns, (long long)p->after_ns);
        break;
    case ANY:
        break;
    }
}

static void *libc_symbol(void *handle, const char *name)
{
    void *found = dlsym(handle, name);
    CHECK(found != NULL, "libc has no %s", name);
    return found;
}

static void find_both(void)
{
    CHECK(dlsym(RTLD_DEFAULT, "monostamp_preload_next_clock_gettime") != NULL,
          "libmonostamp_preload.so is not loaded (LD_PRELOAD=%s)",
          getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
    void *handle = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    CHECK(handle != NULL, "libc.so.6 is not loaded: %s", dlerror());
    void *p;
    /* POSIX makes dlsym's void * a function pointer; ISO C has no such
     * conversion, so the bits are copied. */
    p = libc_symbol(handle, "clock_gettime");
    memcpy(&libc.clock_gettime, &p, sizeof p);
    p = libc_symbol(handle, "timespec_get");
    memcpy(&libc.timespec_get, &p, sizeof p);
    p = libc_symbol(handle, "gettimeofday");
    memcpy(&libc.gettimeofday, &p, sizeof p);
    p = libc_symbol(handle, "time");
    memcpy(&libc.time, &p, sizeof p);
    preloaded.clock_gettime = clock_gettime;
    preloaded.timespec_get = timespec_get;
    preloaded.gettimeofday = gettimeofday;
    preloaded.time = time;
    /* Else the table compares libc with itself and proves nothing. */
    CHECK(preloaded.clock_gettime != libc.clock_gettime &&
              preloaded.gettimeofday != libc.gettimeofday,
          "the program's clock_gettime is libc's: the preload does not stand in front of it");
}

static void table(void)
{
    struct outcome *o = mmap(NULL, 2 * sizeof *o, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(o != MAP_FAILED, "mmap");
    int faults = 0;
    for (int i = 0; i < NROWS; i++) {
        run_in_child(&rows[i], &libc, &o[1]);
        run_in_child(&rows[i], &preloaded, &o[0]);
        compare(&rows[i], &o[0], &o[1]);
        faults += !o[1].returned;
    }
    munmap(o, 2 * sizeof *o);
    CHECK(faults >= 5, "only %d rows faulted in libc: the table tests less than it says", faults);
    printf("ok contract: %d rows, each as libc answers them (%d of them fault in both)\n", NROWS,
           faults);
}

/* At grain us every wall-clock answer is a whole µs, and back to back they
 * are distinct: what a reader that truncates to µs needs. */
static void grain_distinct(void)
{
    enum { N = 100000 };
    static int64_t v[N];
    struct timespec ts;
    for (int i = 0; i < N; i++) {
        int which = i % 3;
        if (which == 0)
            clock_gettime(CLOCK_REALTIME, &ts);
        else if (which == 1)
            clock_gettime(CLOCK_REALTIME_COARSE, &ts);
        else
            timespec_get(&ts, TIME_UTC);
        v[i] = ns_of(&ts);
        if (whole_us_grain)
            CHECK(v[i] % 1000 == 0, "reading %d (%lld) is not a whole us", i, (long long)v[i]);
    }
    check_increasing("clock_gettime / coarse / timespec_get", v, N);
    if (whole_us_grain)
        for (int i = 1; i < N; i++)
            CHECK(v[i] / 1000 > v[i - 1] / 1000, "readings %d and %d share a us", i - 1, i);
    printf("ok grain %s: %d readings increasing%s\n", whole_us_grain ? "us" : "ns", N,
           whole_us_grain ? ", each a distinct whole us" : "");
}

/* A bad MONOSTAMP_GRAIN: one line on stderr at load naming it, and ns. */
static void bad_grain(const char *self)
{
    int fd[2];
    CHECK(pipe(fd) == 0, "pipe");
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        setenv("MONOSTAMP_GRAIN", "micro", 1);
        execl(self, self, "print", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[1024];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf - 1 && (got = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)got;
    buf[n] = '\0';
    close(fd[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child with MONOSTAMP_GRAIN=micro failed: %s", buf);
    const char *line = "monostamp_preload: MONOSTAMP_GRAIN=micro: takes ns or us; answering in ns\n";
    CHECK(strncmp(buf, line, strlen(line)) == 0, "stderr and stdout were: %s", buf);
    const char *rest = buf + strlen(line);
    CHECK(strstr(rest, "monostamp_preload") == NULL, "more than one line: %s", buf);
    /* ns grain: of ten readings, some are not whole us. */
    int whole = 0, count = 0;
    for (char *end; *rest != '\0'; rest = end) {
        long long ns = strtoll(rest, &end, 10);
        if (end == rest)
            break;
        whole += ns % 1000 == 0;
        count++;
    }
    CHECK(count == 10 && whole < count, "%d of %d readings whole us after a bad value: %s",
          whole, count, buf);
    printf("ok bad grain: one line, then ns\n");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "print") == 0) {
        /* For bad_grain: ten back-to-back readings. */
        for (int i = 0; i < 10; i++) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            printf("%lld ", (long long)ns_of(&ts));
        }
        printf("\n");
        return 0;
    }
    CHECK(argc >= 2, "usage: test_contract DIR [ns|us]");
    whole_us_grain = argc >= 3 && strcmp(argv[2], "us") == 0;
    const char *grain = getenv("MONOSTAMP_GRAIN");
    CHECK(whole_us_grain == (grain != NULL && strcmp(grain, "us") == 0),
          "MONOSTAMP_GRAIN=%s but the test was told %s", grain ? grain : "(unset)",
          argc >= 3 ? argv[2] : "ns");
    find_both();
    table();
    grain_distinct();
    if (!whole_us_grain)
        bad_grain("/proc/self/exe");
    return 0;
}
