/*
 * os.h: every call the core makes into the operating system, behind one
 * interface (libuv's uv-common.h over src/unix and src/win).  os_posix.c
 * implements it on POSIX; on Windows, os_windows_files.c implements the
 * file system (paths, state files, anonymous shared maps, file ids and
 * whole-file reads) and os_windows.c the rest.  Each file sits inside one
 * top-level #if, so every build compiles all three and the other
 * platform's are empty.  The rest of the core is portable C11 and includes
 * no platform header.
 *
 * Failures are returned as MONOSTAMP_EOS(err) (the cause travels in the
 * code) or as a named MONOSTAMP_E* code; nothing here leaves a cause in
 * errno for a caller to pick up.
 *
 * Two things are here inline rather than in the .c files, because they are
 * on the stamp's hot path: the wall-clock read (one vDSO call, no wrapper:
 * an out-of-line call measured 1.3 ns of a 29 ns read) and the CPU's
 * spin-wait hint.
 */
#ifndef MONOSTAMP_OS_H
#define MONOSTAMP_OS_H

#include "config.h"

#if defined(_WIN32)
/* Windows' lock and once types are one pointer wide; their layouts are
 * checked against these in os_windows.c, so windows.h stays out of here. */
typedef struct monostamp__os_mutex { void *opaque; } monostamp__os_mutex;
typedef struct monostamp__os_once_flag { void *opaque; } monostamp__os_once_flag;
#define MONOSTAMP__OS_MUTEX_INIT {0}
#define MONOSTAMP__OS_ONCE_INIT {0}
#else
#include <errno.h>
#include <pthread.h>
#include <time.h>
typedef pthread_mutex_t monostamp__os_mutex;
typedef pthread_once_t monostamp__os_once_flag;
#define MONOSTAMP__OS_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define MONOSTAMP__OS_ONCE_INIT PTHREAD_ONCE_INIT
#endif

MONOSTAMP__HIDDEN_BEGIN

/* The code for a failed OS call that left error number `err`: always
 * negative, so a call that failed without saying why (err 0) can never
 * read as success, and never overflowing. */
static inline int monostamp__os_fail(int err)
{
    if (err <= 0 || err > 0x7fffffff - MONOSTAMP_EOS_BASE)
        err = 5; /* EIO on POSIX, ERROR_ACCESS_DENIED on Windows: a failure */
    return MONOSTAMP_EOS(err);
}

/* ------------------------------------------------------- wall clocks */

#if defined(_WIN32)
/* A raw reading of MONOSTAMP_SOURCE_REALTIME or _REALTIME_COARSE in ns
 * since the epoch: 0, MONOSTAMP_ERANGE past 2262, or an EOS code. */
int monostamp__os_clock_read(int source, int64_t *out_ns);
#else
/* Linux spells the tick-grained clock CLOCK_REALTIME_COARSE, FreeBSD
 * CLOCK_REALTIME_FAST; elsewhere the precise clock stands in. */
#if defined(CLOCK_REALTIME_COARSE)
#define MONOSTAMP__COARSE_ID CLOCK_REALTIME_COARSE
#define MONOSTAMP__COARSE_NAME "clock_gettime(CLOCK_REALTIME_COARSE)"
#elif defined(CLOCK_REALTIME_FAST)
#define MONOSTAMP__COARSE_ID CLOCK_REALTIME_FAST
#define MONOSTAMP__COARSE_NAME "clock_gettime(CLOCK_REALTIME_FAST)"
#else
#define MONOSTAMP__COARSE_ID CLOCK_REALTIME
#define MONOSTAMP__COARSE_NAME "clock_gettime(CLOCK_REALTIME)"
#endif

/* The wall-clock read: libc's clock_gettime, or, in a process where
 * libmonostamp_preload.so stands in for it, the preload's call to what
 * libc (or a libfaketime under it) would answer without it, so that the
 * core's sequence is never fed the preload's own stamps (docs/preload.md).
 * Set before main by os_posix.c's constructor; an indirect call through it
 * costs what the PLT's jump did. */
typedef int (*monostamp__os_clock_gettime_fn)(clockid_t, struct timespec *);
extern monostamp__os_clock_gettime_fn monostamp__os_wall_clock_gettime;

static inline int monostamp__os_clock_read(int source, int64_t *out_ns)
{
    struct timespec ts;
    clockid_t id = source == MONOSTAMP_SOURCE_REALTIME ? CLOCK_REALTIME : MONOSTAMP__COARSE_ID;
    if (MONOSTAMP__UNLIKELY(monostamp__os_wall_clock_gettime(id, &ts) != 0))
        return monostamp__os_fail(errno);
    /* Refuse instants past 2262-04-11 (or before 1677) rather than wrap. */
    if (MONOSTAMP__UNLIKELY(
            ts.tv_sec > (INT64_MAX - (MONOSTAMP__NS_PER_S - 1)) / MONOSTAMP__NS_PER_S ||
            ts.tv_sec < INT64_MIN / MONOSTAMP__NS_PER_S + 1))
        return MONOSTAMP_ERANGE;
    *out_ns = (int64_t)ts.tv_sec * MONOSTAMP__NS_PER_S + ts.tv_nsec;
    return MONOSTAMP_OK;
}
#endif

/* The facts of a platform source (not "manual"): 0, MONOSTAMP_EINVAL for
 * another source, or an EOS code. */
int monostamp__os_clock_info(int source, monostamp_clock_info *out);

/* ---------------------------------------------------- monotonic, sleep */

/* The monotonic clock in ns (CLOCK_MONOTONIC, QueryPerformanceCounter);
 * 0 if it cannot be read (never seen). */
int64_t monostamp__os_monotonic_ns(void);

/* The monotonic clock that ticks with a wall-clock source, for the lead
 * bound's reference (clock.c): the tick-grained one (CLOCK_MONOTONIC_COARSE)
 * for MONOSTAMP_SOURCE_REALTIME_COARSE where there is one, so that the
 * reference trails real time as that source does; else the precise one. */
int64_t monostamp__os_monotonic_of(int source);

/* Sleeps about `ns` (> 0), for the lead bound, where waking late only
 * costs a later stamp.  Signals shorten nothing: the nap resumes. */
void monostamp__os_nap_ns(int64_t ns);

/* Blocks until the monotonic clock reaches `deadline_ns`, an absolute
 * time, so that a signal handler's run does not stretch the sleep: it is
 * simply resumed.  0, or an EOS code. */
int monostamp__os_sleep_until(int64_t deadline_ns);

/* The calling thread's timer slack in ns (what the kernel may add to a
 * timer to batch wake-ups), or -1 where there is no such knob. */
int64_t monostamp__os_timer_slack_get(void);

/* Sets the calling thread's timer slack (>= 1 ns).  0, or an EOS code
 * (MONOSTAMP_EOS(ENOSYS)-like where there is no knob). */
int monostamp__os_timer_slack_set(int64_t slack_ns);

/* Offers the rest of the calling thread's time slice to another runnable
 * thread (sched_yield, SwitchToThread); returns at once when there is
 * none.  For a spin on a machine whose CPUs are contended. */
void monostamp__os_yield(void);

/* A hint to the CPU that we are busy-waiting: it lets a sibling
 * hyper-thread run and saves power, without giving the core away. */
static inline void monostamp__os_cpu_relax(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#elif defined(__GNUC__) && (defined(__aarch64__) || defined(__arm__))
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* ------------------------------------------------------ shared memory */

struct monostamp__os_file_id;

/* A state file's place, pinned when a clock opens it: the directory
 * (POSIX: an open directory descriptor, so openat/fstatat reach the same
 * directory whatever chdir() or a rename of a parent does) and the file's
 * name in it.  Windows pins the full path instead (docs/windows.md). */
typedef struct monostamp__os_place monostamp__os_place;

/* Pins the directory of `path` (resolved now, against the current working
 * directory if relative) and its last component.  0 and *out (free with
 * monostamp__os_place_free), MONOSTAMP_EFOREIGN for a path that ends in
 * a separator, MONOSTAMP_ENOMEM, or an EOS code. */
int monostamp__os_place_pin(const char *path, monostamp__os_place **out);
void monostamp__os_place_free(monostamp__os_place *place);

/* Maps `size` bytes of the file at a pinned place shared and writable,
 * and gives the identity of the file mapped (to notice later that the
 * place names another).  If the file is absent it is first created holding
 * exactly `initial` (`size` bytes, mode 0600, or 0660 with `trust_group`),
 * complete under a temporary name and then linked into place, so no
 * process ever maps a half-written file and two creators cannot both win.
 * A file another user could write is never used (see
 * monostamp_options.trust_group).  0 and *out_addr; MONOSTAMP_EUNSAFE for
 * such a file; MONOSTAMP_EFOREIGN if the place is not a regular file of at
 * least `size` bytes; else an EOS code.  (Windows: the mode and owner
 * checks read the file's DACL; see docs/windows.md.) */
int monostamp__os_map_place(const monostamp__os_place *place, const void *initial, size_t size,
                            int trust_group, void **out_addr,
                            struct monostamp__os_file_id *out_id);

/* monostamp__os_map_place at `path`, pinned for this one mapping. */
static inline int monostamp__os_map_file(const char *path, const void *initial, size_t size,
                                         int trust_group, void **out_addr,
                                         struct monostamp__os_file_id *out_id)
{
    monostamp__os_place *place;
    int rc = monostamp__os_place_pin(path, &place);
    if (rc != MONOSTAMP_OK)
        return rc;
    rc = monostamp__os_map_place(place, initial, size, trust_group, out_addr, out_id);
    monostamp__os_place_free(place);
    return rc;
}

/* The id of what the place names now, not following a symbolic link
 * (which the mapping refuses anyway): 0, or an EOS code (not found...). */
int monostamp__os_place_id(const monostamp__os_place *place,
                           struct monostamp__os_file_id *out);

/* `size` bytes of zeroed memory that fork() children share with the
 * parent (process-private where there is no fork).  0 or an EOS code. */
int monostamp__os_map_anonymous(size_t size, void **out_addr);

/* Releases memory from either of the two above. */
void monostamp__os_unmap(void *addr, size_t size);

/* ----------------------------------------------------- memory, locks */

/* `size` bytes aligned to `alignment` (a power of two, a multiple of
 * sizeof(void *)), or NULL.  Free with monostamp__os_aligned_free. */
void *monostamp__os_aligned_alloc(size_t alignment, size_t size);
void monostamp__os_aligned_free(void *p);

void monostamp__os_mutex_lock(monostamp__os_mutex *mutex);
/* 1 if the lock was taken, 0 if another thread holds it. */
int monostamp__os_mutex_trylock(monostamp__os_mutex *mutex);
void monostamp__os_mutex_unlock(monostamp__os_mutex *mutex);
/* Runs `init` once per process, whichever thread comes first; the others
 * wait for it to finish. */
void monostamp__os_once(monostamp__os_once_flag *once, void (*init)(void));
/* The calling process's id (getpid, GetCurrentProcessId): never 0, and
 * after fork() the child's differs from its parent's. */
int64_t monostamp__os_process_id(void);
/* Registers handlers around fork() (nothing where there is no fork).
 * Best effort: a failure loses fork safety, nothing else. */
void monostamp__os_atfork(void (*prepare)(void), void (*parent)(void),
                          void (*child)(void));

/* -------------------------------------------------------------- files */

/* What identifies a file's contents cheaply: equal ids mean unchanged.
 * mtime has ns because a rewrite within one second must still show. */
typedef struct monostamp__os_file_id {
    uint64_t dev;
    uint64_t ino;
    int64_t size;
    int64_t mtime_s;
    int64_t mtime_ns;
    int regular;   /* a regular file (not a FIFO, a device, a directory) */
} monostamp__os_file_id;

/* The id of the file at `path` (following links): 0, or an EOS code. */
int monostamp__os_file_id_get(const char *path, monostamp__os_file_id *out);

/* Reads the whole regular file at `path`, of at most `max_size` bytes,
 * into a malloc'd buffer (free() it) and gives its id as opened.  0;
 * MONOSTAMP_EFOREIGN if it is not a regular file, empty or too big;
 * MONOSTAMP_ENOMEM; or an EOS code. */
int monostamp__os_read_file(const char *path, size_t max_size,
                            unsigned char **out_buf, size_t *out_len,
                            monostamp__os_file_id *out_id);

/* -------------------------------------------------- the C library's zone */

/* Makes the C library re-read TZ (tzset). */
void monostamp__os_local_zone_reset(void);
/* The C library's local offset at `t_s` (seconds since the epoch), east
 * of UTC: 0, or -1 if it has none for that instant. */
int monostamp__os_local_offset(int64_t t_s, int32_t *out_offset_s);

/* ------------------------------------------------------------- others */

/* Fills `buf` with `size` bytes from the OS's cryptographic generator.
 * 0, or an EOS code. */
int monostamp__os_random(void *buf, size_t size);

/* The OS's message for error number `err` into `buf` (NUL-terminated,
 * cut to fit). */
void monostamp__os_strerror(int err, char *buf, size_t size);

MONOSTAMP__HIDDEN_END

#endif
