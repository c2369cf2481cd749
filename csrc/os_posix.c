/*
 * os_posix.c: the OS layer (os.h) on Linux, the BSDs and macOS.
 */
#include "os.h"

#if !defined(_WIN32)

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* What identifies a file's contents (os.h); read by the mapping and the
 * file functions below. */
static void file_id_of(const struct stat *st, monostamp__os_file_id *out)
{
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->size = (int64_t)st->st_size;
    out->regular = S_ISREG(st->st_mode);
#if defined(__APPLE__)
    out->mtime_s = (int64_t)st->st_mtimespec.tv_sec;
    out->mtime_ns = (int64_t)st->st_mtimespec.tv_nsec;
#else
    out->mtime_s = (int64_t)st->st_mtim.tv_sec;
    out->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
#endif
}

/* ------------------------------------------------------ shared memory */

/* Returns `rc` after closing `fd`: close() may change errno, and the code
 * already carries the cause. */
static int close_returning(int fd, int rc)
{
    close(fd);
    return rc;
}

/* Writes `initial` into the new file `fd` and gives it its mode (set
 * exactly: the umask must not strip the group's bits for trust_group). */
static int fill_new_file(int fd, const void *initial, size_t size, int trust_group)
{
    ssize_t wrote = pwrite(fd, initial, size, 0);
    if (wrote < 0)
        return monostamp__os_fail(errno);
    if ((size_t)wrote != size)
        return MONOSTAMP_EOS(EIO);
    if (fchmod(fd, trust_group ? 0660 : 0600) != 0)
        return monostamp__os_fail(errno);
    return MONOSTAMP_OK;
}

/* A directory opened only to be a base for *at() calls: O_PATH where
 * Linux has it (it needs no read permission on the directory; glibc
 * declares it only under _GNU_SOURCE, hence its internal name). */
#if !defined(O_PATH) && defined(__O_PATH)
#define O_PATH __O_PATH
#endif
#if defined(O_PATH)
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

struct monostamp__os_place {
    int dir_fd;  /* the directory, pinned */
    char name[]; /* the file's name in it */
};

int monostamp__os_place_pin(const char *path, monostamp__os_place **out)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash == NULL ? path : slash + 1;
    size_t name_len = strlen(name);
    int fd;

    if (name_len == 0)
        return MONOSTAMP_EFOREIGN; /* "dir/": a directory, no state file */
    if (slash == NULL) {
        fd = open(".", DIR_FLAGS);
    } else {
        size_t len = slash == path ? 1 : (size_t)(slash - path);
        char *dir = malloc(len + 1);
        if (dir == NULL)
            return MONOSTAMP_ENOMEM;
        memcpy(dir, path, len);
        dir[len] = '\0';
        fd = open(dir, DIR_FLAGS);
        free(dir);
    }
    if (fd < 0)
        return monostamp__os_fail(errno);
    monostamp__os_place *place = malloc(sizeof *place + name_len + 1);
    if (place == NULL)
        return close_returning(fd, MONOSTAMP_ENOMEM);
    place->dir_fd = fd;
    memcpy(place->name, name, name_len + 1);
    *out = place;
    return MONOSTAMP_OK;
}

void monostamp__os_place_free(monostamp__os_place *place)
{
    if (place == NULL)
        return;
    close(place->dir_fd);
    free(place);
}

int monostamp__os_place_id(const monostamp__os_place *place, monostamp__os_file_id *out)
{
    struct stat st;
    if (fstatat(place->dir_fd, place->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return monostamp__os_fail(errno);
    file_id_of(&st, out);
    return MONOSTAMP_OK;
}

#if defined(O_TMPFILE) && defined(__linux__)
/* Linux: the file is made nameless (O_TMPFILE) and linked into place once
 * complete, so a process killed half-way leaves nothing behind.  1 if done
 * (*rc says how), 0 if this file system cannot, for the fallback. */
static int create_nameless(const monostamp__os_place *place, const void *initial, size_t size,
                           int trust_group, int *rc)
{
    char proc[64];
    int fd = openat(place->dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    if ((*rc = fill_new_file(fd, initial, size, trust_group)) == MONOSTAMP_OK) {
        /* linkat with AT_EMPTY_PATH needs a capability; through /proc it
         * does not.  No /proc: fall back. */
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc, place->dir_fd, place->name, AT_SYMLINK_FOLLOW) != 0 &&
            errno != EEXIST) {
            int err = errno;
            close(fd);
            if (err == ENOENT && access("/proc/self/fd", F_OK) != 0)
                return 0;
            *rc = monostamp__os_fail(err);
            return 1;
        }
    }
    close(fd);
    return 1;
}
#endif

/* Makes the file complete, then links it to the place: no process ever
 * maps a half-written file, and of two creators exactly one wins.  Success
 * also when another process linked its own first (EEXIST): the caller then
 * checks whose file that is. */
static int create_complete(const monostamp__os_place *place, const void *initial, size_t size,
                           int trust_group)
{
    int rc = MONOSTAMP_OK;
#if defined(O_TMPFILE) && defined(__linux__)
    if (create_nameless(place, initial, size, trust_group, &rc))
        return rc;
#endif
    /* Elsewhere a short temporary name in the same directory (so that a
     * 250-byte file name still fits NAME_MAX), removed at once; mkstemp
     * has no *at() form, so the name is made here. */
    char tmp[32];
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        unsigned char random[6];
        if ((rc = monostamp__os_random(random, sizeof random)) != MONOSTAMP_OK)
            return rc;
        snprintf(tmp, sizeof tmp, ".monostamp-%02x%02x%02x%02x%02x%02x", random[0], random[1],
                 random[2], random[3], random[4], random[5]);
        fd = openat(place->dir_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST)
            return monostamp__os_fail(errno);
    }
    if (fd < 0)
        return MONOSTAMP_EOS(EEXIST);
    rc = fill_new_file(fd, initial, size, trust_group);
    if (rc == MONOSTAMP_OK && linkat(place->dir_fd, tmp, place->dir_fd, place->name, 0) != 0 &&
        errno != EEXIST)
        rc = monostamp__os_fail(errno);
    unlinkat(place->dir_fd, tmp, 0);
    close(fd);
    return rc;
}

/* 1 if `gid` is the effective group or one of the supplementary ones. */
static int in_my_groups(gid_t gid)
{
    if (gid == getegid())
        return 1;
    int n = getgroups(0, NULL);
    if (n <= 0)
        return 0;
    gid_t *groups = malloc((size_t)n * sizeof *groups);
    if (groups == NULL)
        return 0;
    n = getgroups(n, groups);
    int found = 0;
    for (int i = 0; i < n && !found; i++)
        found = groups[i] == gid;
    free(groups);
    return found;
}

/*
 * Whether a state file is safe to share a sequence through.  Anyone who
 * can write it can push every joiner's stamps years ahead or make them
 * fail for good, so by default it must be the caller's own and writable by
 * nobody else; trust_group widens that to a file of one of the caller's
 * groups (owner in the group, group-writable), never to other users.
 * Root is held to the same rule: it must not trust a user's file either.
 */
static int owner_is_safe(const struct stat *st, int trust_group)
{
    if (st->st_mode & S_IWOTH)
        return 0;
    if (st->st_uid == geteuid())
        return trust_group || !(st->st_mode & S_IWGRP);
    return trust_group && in_my_groups(st->st_gid);
}

int monostamp__os_map_place(const monostamp__os_place *place, const void *initial, size_t size,
                            int trust_group, void **out_addr, struct monostamp__os_file_id *out_id)
{
    struct stat st;
    int fd, rc;
    /* O_NOFOLLOW: a symbolic link planted at the path is refused, not
     * followed to a file of someone else's choosing. */
    const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;

    fd = openat(place->dir_fd, place->name, flags);
    if (fd < 0 && errno == ENOENT) {
        if ((rc = create_complete(place, initial, size, trust_group)) != MONOSTAMP_OK)
            return rc;
        fd = openat(place->dir_fd, place->name, flags);
    }
    if (fd < 0)
        return errno == ELOOP ? MONOSTAMP_EUNSAFE : monostamp__os_fail(errno);
    if (fstat(fd, &st) != 0)
        return close_returning(fd, monostamp__os_fail(errno));
    if (!S_ISREG(st.st_mode))
        return close_returning(fd, MONOSTAMP_EFOREIGN);
    if (!owner_is_safe(&st, trust_group))
        return close_returning(fd, MONOSTAMP_EUNSAFE);
    if (st.st_size < (off_t)size)
        return close_returning(fd, MONOSTAMP_EFOREIGN);
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return close_returning(fd, monostamp__os_fail(errno));
    close(fd); /* the mapping keeps the file */
    *out_addr = map;
    file_id_of(&st, out_id);
    return MONOSTAMP_OK;
}

int monostamp__os_map_anonymous(size_t size, void **out_addr)
{
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return monostamp__os_fail(errno);
    *out_addr = map; /* zero-filled by the kernel */
    return MONOSTAMP_OK;
}

void monostamp__os_unmap(void *addr, size_t size)
{
    munmap(addr, size);
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

/* -------------------------------------------------------------- files */

int monostamp__os_file_id_get(const char *path, monostamp__os_file_id *out)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return monostamp__os_fail(errno);
    file_id_of(&st, out);
    return MONOSTAMP_OK;
}

int monostamp__os_read_file(const char *path, size_t max_size,
                            unsigned char **out_buf, size_t *out_len,
                            monostamp__os_file_id *out_id)
{
    struct stat st;
    unsigned char *buf;
    size_t got = 0, want;
    /* O_NONBLOCK: opening a FIFO (or a device) must not hang; anything
     * but a regular file is refused below, before a read. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

    if (fd < 0)
        return monostamp__os_fail(errno);
    if (fstat(fd, &st) != 0)
        return close_returning(fd, monostamp__os_fail(errno));
    if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > max_size)
        return close_returning(fd, MONOSTAMP_EFOREIGN);
    want = (size_t)st.st_size;
    if ((buf = malloc(want)) == NULL)
        return close_returning(fd, MONOSTAMP_ENOMEM);
    /* The size came from fstat; a file that shrinks meanwhile reads short
     * (and its parse fails), one that grows is noticed at the next
     * re-check, by its id. */
    while (got < want) {
        ssize_t r = read(fd, buf + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *out_buf = buf;
    *out_len = got;
    if (out_id != NULL)
        file_id_of(&st, out_id);
    return MONOSTAMP_OK;
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
