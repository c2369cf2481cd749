/*
 * os_posix.c: the OS layer (os.h) on Linux, the BSDs and macOS: clocks,
 * sleep, locks, the process, the C library's zone, random bytes.  The file
 * half (places, state files, anonymous maps, file reads) is in
 * os_posix_files.c.
 */
#include "os.h"

#if !defined(_WIN32)

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

static struct timespec timespec_of(int64_t ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / MONOSTAMP__NS_PER_S);
    ts.tv_nsec = (long)(ns % MONOSTAMP__NS_PER_S);
    return ts;
}

/* ------------------------------------------------------- wall clocks */

/*
 * Under libmonostamp_preload.so, clock_gettime is the preload's: it answers
 * CLOCK_REALTIME with stamps of its own sequence.  The core must read what
 * the clock says, not a stamp, so when the preload is present the core
 * reads through the one symbol it exports for that
 * (MONOSTAMP__PRELOAD_NEXT: libc's call, or another preload's such as
 * libfaketime's, which it wraps).  Looked up once, at load; a process
 * without the preload keeps libc's function and pays nothing per read.
 * The preload itself compiles the core with clock_gettime renamed to that
 * function (preload/), so it needs no look-up.
 */
monostamp__os_clock_gettime_fn monostamp__os_wall_clock_gettime = clock_gettime;

#if defined(__GNUC__) && !defined(MONOSTAMP_PRELOAD_BUILD)
#include <dlfcn.h>

#define MONOSTAMP__PRELOAD_NEXT "monostamp_preload_next_clock_gettime"

/* Before the default clock's constructor (priority 101 runs before the
 * unprioritised ones), so that no stamp of this module reads the preload. */
static void find_preload_bypass(void) __attribute__((constructor(101)));
static void find_preload_bypass(void)
{
    void *found = NULL;
#if defined(RTLD_DEFAULT)
    found = dlsym(RTLD_DEFAULT, MONOSTAMP__PRELOAD_NEXT);
#else
    /* Without _GNU_SOURCE glibc hides RTLD_DEFAULT; the main program's
     * handle searches the same global scope, LD_PRELOAD objects included. */
    void *self = dlopen(NULL, RTLD_LAZY);
    if (self != NULL) {
        found = dlsym(self, MONOSTAMP__PRELOAD_NEXT);
        dlclose(self);
    }
#endif
    if (found != NULL) {
        /* ISO C has no conversion from void * to a function pointer;
         * POSIX guarantees this one (dlsym's own rationale). */
        monostamp__os_clock_gettime_fn next;
        memcpy(&next, &found, sizeof next);
        monostamp__os_wall_clock_gettime = next;
    }
}
#endif

int monostamp__os_clock_info(int source, monostamp_clock_info *out)
{
    clockid_t id;
    struct timespec res;

    if (source == MONOSTAMP_SOURCE_REALTIME) {
        id = CLOCK_REALTIME;
        out->implementation = "clock_gettime(CLOCK_REALTIME)";
    } else if (source == MONOSTAMP_SOURCE_REALTIME_COARSE) {
        id = MONOSTAMP__COARSE_ID;
        out->implementation = MONOSTAMP__COARSE_NAME;
    } else {
        return MONOSTAMP_EINVAL;
    }
    if (clock_getres(id, &res) != 0)
        return monostamp__os_fail(errno);
    out->name = monostamp_source_name(source);
    out->resolution_ns = (int64_t)res.tv_sec * MONOSTAMP__NS_PER_S + res.tv_nsec;
    out->adjustable = 1;
    out->monotonic = 0;
    return MONOSTAMP_OK;
}

/* ---------------------------------------------------- monotonic, sleep */

int64_t monostamp__os_monotonic_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * MONOSTAMP__NS_PER_S + ts.tv_nsec;
}

int64_t monostamp__os_monotonic_of(int source)
{
#if defined(CLOCK_MONOTONIC_COARSE) && defined(CLOCK_REALTIME_COARSE)
    struct timespec ts;
    if (source == MONOSTAMP_SOURCE_REALTIME_COARSE) {
        if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
            return 0;
        return (int64_t)ts.tv_sec * MONOSTAMP__NS_PER_S + ts.tv_nsec;
    }
#else
    (void)source;
#endif
    return monostamp__os_monotonic_ns();
}

void monostamp__os_nap_ns(int64_t ns)
{
    struct timespec ts = timespec_of(ns);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

#if defined(TIMER_ABSTIME) && !defined(__APPLE__)
int monostamp__os_sleep_until(int64_t deadline_ns)
{
    /* Callers pass deadlines after "now", so deadline_ns > 0 and the split
     * needs no negative-remainder care. */
    struct timespec ts = timespec_of(deadline_ns);
    for (;;) {
        /* An absolute deadline makes the EINTR restart exact: the time
         * spent in a signal handler is not added to the sleep. */
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (rc == 0)
            return MONOSTAMP_OK;
        if (rc != EINTR)
            return monostamp__os_fail(rc); /* it returns its error, errno untouched */
    }
}
#else
/* XXX: not built on this project's Linux machines (macOS lacks an absolute
 * clock_nanosleep).  A relative sleep re-armed from the monotonic clock:
 * never early, as a signal only makes the loop go round again. */
int monostamp__os_sleep_until(int64_t deadline_ns)
{
    for (;;) {
        int64_t left = deadline_ns - monostamp__os_monotonic_ns();
        if (left <= 0)
            return MONOSTAMP_OK;
        struct timespec ts = timespec_of(left);
        if (nanosleep(&ts, NULL) != 0 && errno != EINTR)
            return monostamp__os_fail(errno);
    }
}
#endif

int64_t monostamp__os_timer_slack_get(void)
{
#if defined(__linux__) && defined(PR_GET_TIMERSLACK)
    /* The slack comes back as the return value: an int, enough for any
     * slack this library would narrow (it never widens one). */
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    return slack > 0 ? (int64_t)slack : -1;
#else
    return -1;
#endif
}

int monostamp__os_timer_slack_set(int64_t slack_ns)
{
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
    if (slack_ns < 1)
        slack_ns = 1; /* 0 would mean "back to the default" */
    if (prctl(PR_SET_TIMERSLACK, (unsigned long)slack_ns, 0, 0, 0) != 0)
        return monostamp__os_fail(errno);
    return MONOSTAMP_OK;
#else
    (void)slack_ns;
    return MONOSTAMP_EOS(ENOSYS);
#endif
}

/* sched_yield's header, here beside its one user. */
#include <sched.h>

void monostamp__os_yield(void)
{
    (void)sched_yield(); /* cannot fail on Linux; elsewhere a no-op is fine */
}

/* ----------------------------------------------------- memory, locks */

void *monostamp__os_aligned_alloc(size_t alignment, size_t size)
{
    void *p;
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

void monostamp__os_aligned_free(void *p)
{
    free(p);
}

/* The pthread calls below fail only on misuse (an uninitialised or
 * foreign lock), which this library never does. */
void monostamp__os_mutex_lock(monostamp__os_mutex *mutex)
{
    (void)pthread_mutex_lock(mutex);
}

int monostamp__os_mutex_trylock(monostamp__os_mutex *mutex)
{
    return pthread_mutex_trylock(mutex) == 0;
}

void monostamp__os_mutex_unlock(monostamp__os_mutex *mutex)
{
    (void)pthread_mutex_unlock(mutex);
}

void monostamp__os_once(monostamp__os_once_flag *once, void (*init)(void))
{
    (void)pthread_once(once, init);
}

int64_t monostamp__os_process_id(void)
{
    return (int64_t)getpid();
}

void monostamp__os_atfork(void (*prepare)(void), void (*parent)(void),
                          void (*child)(void))
{
    (void)pthread_atfork(prepare, parent, child);
}

/* -------------------------------------------------- the C library's zone */

void monostamp__os_local_zone_reset(void)
{
    tzset();
}

int monostamp__os_local_offset(int64_t t_s, int32_t *out_offset_s)
{
    time_t t = (time_t)t_s;
    struct tm tm;
    if ((int64_t)t != t_s || localtime_r(&t, &tm) == NULL)
        return -1;
    *out_offset_s = (int32_t)tm.tm_gmtoff;
    return 0;
}

/* ------------------------------------------------------------- others */

#if defined(__linux__)
/* /dev/urandom, for kernels older than 3.17 (no getrandom) and sandboxes
 * whose seccomp filter refuses the call. */
static int random_from_urandom(unsigned char *p, size_t size)
{
    int fd;
    do
        fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return monostamp__os_fail(errno);
    while (size > 0) {
        ssize_t r = read(fd, p, size);
        if (r <= 0) {
            int err = r < 0 ? errno : EIO;
            if (err == EINTR)
                continue;
            close(fd);
            return monostamp__os_fail(err);
        }
        p += r;
        size -= (size_t)r;
    }
    close(fd);
    return MONOSTAMP_OK;
}
#endif

_Static_assert(sizeof(sigset_t) <= sizeof(((monostamp__os_signals *)0)->saved),
               "monostamp__os_signals holds a sigset_t");

/* The calling thread's mask.  On Linux sigprocmask is the thread's, as
 * pthread_sigmask is, and it is libc's own symbol in glibc 2.17, where
 * pthread_sigmask is libpthread's (the wheels promise manylinux_2_17). */
#if defined(__linux__)
#define thread_sigmask sigprocmask
#else
#include <pthread.h>
#define thread_sigmask pthread_sigmask
#endif

void monostamp__os_signals_hold(monostamp__os_signals *saved)
{
    sigset_t all, old;
    sigfillset(&all);
    /* Cannot fail with these arguments; a mask left as it was only means
     * a handler could meet the lock held, as before. */
    if (thread_sigmask(SIG_BLOCK, &all, &old) != 0)
        sigemptyset(&old);
    memcpy(saved->saved, &old, sizeof old);
}

void monostamp__os_signals_release(const monostamp__os_signals *saved)
{
    sigset_t old;
    memcpy(&old, saved->saved, sizeof old);
    (void)thread_sigmask(SIG_SETMASK, &old, NULL);
}

int monostamp__os_random(void *buf, size_t size)
{
    unsigned char *p = buf;
#if defined(__linux__)
    /* The raw system call, not glibc's getrandom(): that is a glibc 2.25
     * symbol, and the wheels promise glibc 2.17 (manylinux_2_17). */
#if defined(SYS_getrandom)
    while (size > 0) {
        long r = syscall(SYS_getrandom, p, size, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOSYS || errno == EPERM)
                return random_from_urandom(p, size);
            return monostamp__os_fail(errno);
        }
        p += r;
        size -= (size_t)r;
    }
    return MONOSTAMP_OK;
#else
    return random_from_urandom(p, size);
#endif
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || \
    defined(__NetBSD__)
    arc4random_buf(p, size);
    return MONOSTAMP_OK;
#else
    (void)p, (void)size;
    return MONOSTAMP_EOS(ENOSYS);
#endif
}

void monostamp__os_strerror(int err, char *buf, size_t size)
{
    if (size == 0)
        return;
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    /* The GNU strerror_r may return a static string instead of filling buf. */
    const char *text = strerror_r(err, buf, size);
    if (text != buf) {
        strncpy(buf, text, size - 1);
        buf[size - 1] = '\0';
    }
#else
    if (strerror_r(err, buf, size) != 0) {
        buf[0] = '\0';
        strncat(buf, "unknown system error", size - 1);
    }
#endif
}

#endif /* !_WIN32 */
