/*
 * os.h: every call the core makes into the operating system, behind one
 * interface (libuv's uv-common.h over src/unix and src/win).  On POSIX,
 * os_posix_files.c implements the file system (paths, state files,
 * anonymous shared maps, file ids and whole-file reads), os_posix_guard.c
 * the truncation guard, os_posix_dirs.c the walks and looks that serve
 * error messages (the zone database's names, a missing directory) and
 * os_posix.c the rest; on Windows os_windows_files.c, os_windows_dirs.c
 * and os_windows.c likewise.  Each file sits inside one top-level #if, so
 * every build compiles all seven and the other platform's are empty.  The
 * rest of the core is portable C11: it includes no platform header and
 * calls no platform function (no stat, opendir or open: only the C
 * library's portable part).
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

/* The reading, and the ns it lies past its second where the source gives
 * them apart (POSIX's tv_nsec, 0 to 10^9 - 1), for a µs floor that need
 * not divide the 64-bit reading (clock.c); -1 here: not given. */
static inline int monostamp__os_clock_read_parts(int source, int64_t *out_ns,
                                                 int64_t *out_ns_of_second)
{
    *out_ns_of_second = -1;
    return monostamp__os_clock_read(source, out_ns);
}
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

/* A raw reading in ns since the epoch (0, MONOSTAMP_ERANGE past 2262, or
 * an EOS code), and the ns it lies past its second as clock_gettime gave
 * them (tv_nsec), for clock.c's µs floor; monostamp__os_clock_read without
 * them. */
static inline int monostamp__os_clock_read_parts(int source, int64_t *out_ns,
                                                 int64_t *out_ns_of_second)
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
    *out_ns_of_second = ts.tv_nsec;
    return MONOSTAMP_OK;
}

static inline int monostamp__os_clock_read(int source, int64_t *out_ns)
{
    int64_t ns_of_second;
    return monostamp__os_clock_read_parts(source, out_ns, &ns_of_second);
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
 * name in it.  Windows pins the full path instead (docs/windows.md).
 *
 * The descriptor is the place's, but a daemon may close it (closerange,
 * close_range, python-daemon) and the number be handed to another
 * directory.  So every call below that goes through it checks first that
 * it still names the directory pinned (fstat: device, inode, a directory;
 * and on Linux an O_PATH descriptor, as ours are); a lost one is found
 * again by the directory's path, as monostamp__os_place_refresh would
 * (its identity taken anew), and the lost number is left alone, never
 * closed: it is someone else's now.  If the path leads nowhere, or was
 * never known (the working directory had no name at the pin), the call
 * fails with an EOS code: nothing is ever made or mapped in a directory
 * the place cannot vouch for.  The check costs an fstat and an fcntl, on
 * these calls alone; the look made every few ms (monostamp__os_place_id)
 * goes by the path and pays nothing for it.
 *
 * Async-signal-safe after the pin: every call below but
 * monostamp__os_place_pin and _free uses system calls alone (no malloc,
 * no stdio, no getcwd) and leaves errno as it found it, since the
 * preload's clock_gettime reaches them and a program may call that from a
 * signal handler.  Threads and handlers may use one place at once, except
 * where a call says not (refresh, free); two that both find the descriptor
 * lost put one new descriptor in, and a handler that interrupts that uses
 * a descriptor of its own for its one call. */
typedef struct monostamp__os_place monostamp__os_place;

/* Pins the directory of `path` (resolved now, against the current working
 * directory if relative) and its last component.  0 and *out (free with
 * monostamp__os_place_free), MONOSTAMP_EFOREIGN for a path that ends in
 * a separator, MONOSTAMP_ENOMEM, or an EOS code.  Allocates: not for a
 * signal handler. */
int monostamp__os_place_pin(const char *path, monostamp__os_place **out);
/* Closes the place's descriptor if it is still its own (see above) and
 * frees it.  Not while another thread uses the place. */
void monostamp__os_place_free(monostamp__os_place *place);

/* Whether the place's directory path, as resolved at the pin, now leads
 * to a directory other than the pinned one (renamed away and replaced,
 * or swapped for a symbolic link to another): 1 or 0 (0 also when it
 * leads nowhere, or where places are pinned by full path: Windows). */
int monostamp__os_place_moved(const monostamp__os_place *place);

/* Re-pins the place's directory to what its path leads to now, if that is
 * another directory: 1 if it did, else 0 (the place unchanged).  The old
 * descriptor is closed only if it was still the place's own.  Not while
 * another thread uses the place. */
int monostamp__os_place_refresh(monostamp__os_place *place);

/* 1 if the place's directory is one no earlier state file can have lived
 * in: owned by this process's effective user, no permission for group or
 * others (mode & 077 == 0), and no entry ever added to or removed from it
 * since it was made (statx: its birth time equals its modification time,
 * both reported by the file system); else 0, also where the file system
 * reports no birth time, where statx is missing (Linux before 4.11, a
 * seccomp filter that refuses it) and off Linux.  Changes made within the
 * file system's timestamp tick of the directory's birth (4 ms here) leave
 * the two equal, unseen; only the directory's own user can make them.
 * Async-signal-safe. */
int monostamp__os_place_pristine(const monostamp__os_place *place);

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
 * checks read the file's DACL; see docs/windows.md.)  `repair` (or NULL)
 * names a file this process had mapped: if the place names that very file
 * (device and inode) and it is shorter than `size`, truncated, it is
 * written anew from `initial` first, by one repairer at a time. */
int monostamp__os_map_place(const monostamp__os_place *place, const void *initial, size_t size,
                            int trust_group, const struct monostamp__os_file_id *repair,
                            void **out_addr, struct monostamp__os_file_id *out_id);

/* monostamp__os_map_place at `path`, pinned for this one mapping. */
static inline int monostamp__os_map_file(const char *path, const void *initial, size_t size,
                                         int trust_group, void **out_addr,
                                         struct monostamp__os_file_id *out_id)
{
    monostamp__os_place *place;
    int rc = monostamp__os_place_pin(path, &place);
    if (rc != MONOSTAMP_OK)
        return rc;
    rc = monostamp__os_map_place(place, initial, size, trust_group, NULL, out_addr, out_id);
    monostamp__os_place_free(place);
    return rc;
}

/* The id of what the place's path names now: the path as resolved at the
 * pin (so a chdir() changes nothing), through whatever directory it leads
 * to now; the last component not followed if a symbolic link (which the
 * mapping refuses anyway).  0, or an EOS code (not found...). */
int monostamp__os_place_id(const monostamp__os_place *place,
                           struct monostamp__os_file_id *out);

/* The same, through the pinned directory. */
int monostamp__os_place_pinned_id(const monostamp__os_place *place,
                                  struct monostamp__os_file_id *out);

/* A shared mapping of a state file (`size` bytes at `addr`, from
 * monostamp__os_map_place), guarded against truncation of the file: an
 * access that would fault (SIGBUS) finds instead a private page whose
 * first `size` bytes are `tombstone`, swapped in whole by the fault
 * handler (os_posix_guard.c), which is installed while any mapping is
 * guarded and hands every other SIGBUS to the handler before it.  0, or
 * an error (the mapping is then unguarded: nothing else changes).  No-ops
 * where a mapped file cannot be truncated (Windows) or no page can be
 * swapped in whole. */
int monostamp__os_guard(void *addr, size_t size, const void *tombstone);
/* Ends the guard of `addr` (before it is unmapped). */
void monostamp__os_unguard(void *addr);
/* 1 if the handler swapped the tombstone in at `addr` (the file was
 * truncated), else 0. */
int monostamp__os_guard_tripped(const void *addr);

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

/* The signals a thread had blocked, saved by monostamp__os_signals_hold
 * (storage for a sigset_t; unused on Windows). */
typedef struct monostamp__os_signals {
    uint64_t saved[16];
} monostamp__os_signals;

/* Blocks every signal the thread can block, saving the mask it had, for a
 * section that holds a lock a signal handler on the same thread could
 * wait for (a shared clock's watch: clock_share.c, reached from the
 * preload's clock_gettime inside handlers).  Async-signal-safe. */
void monostamp__os_signals_hold(monostamp__os_signals *saved);
/* Gives the thread back the mask `saved` holds. */
void monostamp__os_signals_release(const monostamp__os_signals *saved);

/* The OS's message for error number `err` into `buf` (NUL-terminated,
 * cut to fit). */
void monostamp__os_strerror(int err, char *buf, size_t size);

/* The POSIX errno that OS error number `err` stands for: `err` itself on
 * POSIX; on Windows the C runtime's errno for a GetLastError() code, as the
 * runtime maps its own failures (_dosmaperr), 0 where none fits. */
#if defined(_WIN32)
int monostamp__os_posix_errno(int err);
#else
static inline int monostamp__os_posix_errno(int err) { return err; }
#endif

/* ------------------------------------------ for error messages alone */

/* Calls visit(ctx, name) for each regular file under the directory
 * `root` whose first four bytes are `magic`, `name` its path below `root`
 * with '/' between parts, going at most `depth` directories down and
 * skipping the top-level directories named in `skipped` (NULL-ended).
 * For the zone database's names (a zone file starts "TZif"); it reads
 * what it can and passes over the rest.  Visits nothing on Windows, which
 * has no zone database. */
void monostamp__os_zone_walk(const char *root, int depth, const char *const *skipped,
                             const char *magic, void (*visit)(void *ctx, const char *name),
                             void *ctx);

/* 1 if the directory that would hold the file `path` (its part before the
 * last '/') does not exist, or is no directory; 0 if it does, if `path`
 * has no directory part, or if it cannot be told.  Always 0 on Windows,
 * whose own sentence for a missing directory says so. */
int monostamp__os_dir_missing(const char *path);

MONOSTAMP__HIDDEN_END

#endif
