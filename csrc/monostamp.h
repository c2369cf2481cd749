/*
 * monostamp.h: unique, monotonic wall-clock timestamps that carry the local
 * UTC offset.  This header is the manual: every function says its units, its
 * range, whether it is thread-safe and what it returns.
 *
 * Conventions
 *   - Instants are int64_t nanoseconds since 1970-01-01T00:00:00Z (`*_ns`,
 *     years 1677..2262), offsets are int32_t seconds east of UTC
 *     (`*_offset_s`).  INT64_MIN stands for "no stamp yet" in a clock's
 *     state, so the monotonic policies never hand it out (a manual reading
 *     of INT64_MIN becomes INT64_MIN + 1).
 *   - Functions that can fail return 0 or a negative MONOSTAMP_E* code;
 *     monostamp_strerror() names it.  The library never prints, exits or
 *     aborts, and a failed call leaves every clock as it was.
 *   - A failed OS call is reported as MONOSTAMP_EOS(err), the OS's own
 *     error number carried inside the code: monostamp_os_errno() gives it
 *     back.  The library never leaves a cause in errno for you to read.
 *   - Thread-safety is stated per function.  "Thread-safe" means any
 *     number of threads may call it at once, on one object or several.
 *   - This header is C99, C11 and C++11 or later: no atomics, no
 *     layouts; clocks are opaque storage of a stated size.
 *   - What only a binding for a host language needs (its sleep's plan, the
 *     sentences of its errors, the rules at its edge) is in
 *     monostamp_host.h, which includes this one.
 */
#ifndef MONOSTAMP_H
#define MONOSTAMP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what libmonostamp exports; it is built with MONOSTAMP_EXPORTS.
 * Windows DLL users define MONOSTAMP_DLL to import.  A module that
 * compiles the core into itself (the Python extension, the Lua rock)
 * exports none of it: see csrc/config.h. */
#ifndef MONOSTAMP_API
#if defined(_WIN32) && defined(MONOSTAMP_EXPORTS)
#define MONOSTAMP_API __declspec(dllexport)
#elif defined(_WIN32) && defined(MONOSTAMP_DLL)
#define MONOSTAMP_API __declspec(dllimport)
#elif defined(__GNUC__) && defined(MONOSTAMP_EXPORTS)
#define MONOSTAMP_API __attribute__((visibility("default")))
#else
#define MONOSTAMP_API
#endif
#endif

#define MONOSTAMP_VERSION_MAJOR 0
#define MONOSTAMP_VERSION_MINOR 1
#define MONOSTAMP_VERSION_PATCH 0
#define MONOSTAMP_VERSION "0.1.0"

/* ---------------------------------------------------------------- errors */

/* The core's own codes, one table: XX(name, value, message), in libuv's
 * UV_ERRNO_MAP manner.  The enum below, monostamp_strerror's sentences and
 * the names a binding shows (monostamp_host.h) are all made from it; each
 * message says what the code means.  -5 is retired: OS failures are
 * MONOSTAMP_EOS(err) below.  ERANGE: a result past int64 ns or years
 * 1..9999.  EINTR: the clock's waiter cut the wait short
 * (monostamp_clock_set_waiter).  EPOLICY: an operation that needs unique
 * stamps (monostamp_clock_take).  EEXIST: monostamp_state_file_create. */
#define MONOSTAMP_ERRNO_MAP(XX) \
    XX(EINVAL, -1, "invalid argument") \
    XX(ERANGE, -2, "value out of range") \
    XX(ENOTSUP, -3, "operation not supported by this clock's source") \
    XX(ELEAD, -4, "stamp would lead its source by more than max_lead_ns") \
    XX(EFOREIGN, -6, "not a monostamp state file, or truncated") \
    XX(EVERSION, -7, "monostamp state file of another version") \
    XX(ENOZONE, -8, "unknown or malformed time zone") \
    XX(ESYNTAX, -9, "malformed ISO 8601 text") \
    XX(ENOMEM, -10, "out of memory") \
    XX(EUNSAFE, -11, "state file another user could write (a symbolic link, not owned by " \
                     "you, or writable by group or others)") \
    XX(EINTR, -12, "interrupted while waiting for the lead bound") \
    XX(EPOLICY, -13, "the clock's policy does not make stamps unique") \
    XX(ENOTV7, -14, "not a UUIDv7 made by monostamp (version, variant or fraction bits)") \
    XX(EEXIST, -15, "a file is already at the path of a state file to create")

enum {
    MONOSTAMP_OK = 0,
#define MONOSTAMP__XX(name, value, message) MONOSTAMP_##name = value,
    MONOSTAMP_ERRNO_MAP(MONOSTAMP__XX)
#undef MONOSTAMP__XX
    MONOSTAMP__ELAST = -16  /* below the last code: no code, ends the list */
};

/* A failed OS call: -(MONOSTAMP_EOS_BASE + err), where err is the errno
 * value (POSIX) or the GetLastError() value (Windows) the call left.  Codes
 * at or below -MONOSTAMP_EOS_BASE are OS errors; the named ones above them. */
#define MONOSTAMP_EOS_BASE 1000
#define MONOSTAMP_EOS(err) (-(MONOSTAMP_EOS_BASE + (err)))

/* The OS error number inside `code` if it is a MONOSTAMP_EOS code, else 0.
 * Thread-safe. */
MONOSTAMP_API int monostamp_os_errno(int code);

/* A human-readable sentence for `code`: static text for monostamp's own
 * codes ("unknown error" for codes this version does not know), the OS's
 * message for a MONOSTAMP_EOS code (kept in a per-thread buffer, valid
 * until the same thread calls again).  Never NULL.  Thread-safe. */
MONOSTAMP_API const char *monostamp_strerror(int code);

/* ------------------------------------------------------------- policies */

/* What a clock does with a reading r, given the last value it handed out.
 * Names and meaning follow Squeak Smalltalk's `Time clockPolicy:`. */
typedef enum monostamp_policy {
    /* r as read: may repeat, may go backwards. */
    MONOSTAMP_ACCEPT_PLATFORM_TIME = 0,
    /* max(r, last): never backwards, may repeat. */
    MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES = 1,
    /* r floored to a whole microsecond, or the next whole microsecond after
     * last when that is not greater (last + 1000 when last is whole). */
    MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT = 2,
    /* r if greater than last, else last + 1: strictly increasing. */
    MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT = 3
} monostamp_policy;

#define MONOSTAMP_DEFAULT_POLICY MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT

/* The Squeak name ("acceptPlatformTime", ...), or NULL if `policy` is not a
 * policy.  Thread-safe, like every name lookup below. */
MONOSTAMP_API const char *monostamp_policy_name(int policy);
/* Looks a Squeak name up; MONOSTAMP_EINVAL if `name` is none of the four. */
MONOSTAMP_API int monostamp_policy_from_name(const char *name,
                                             monostamp_policy *out);
/* -------------------------------------------------------------- sources */

typedef enum monostamp_source {
    MONOSTAMP_SOURCE_REALTIME = 0,        /* the precise wall clock */
    MONOSTAMP_SOURCE_REALTIME_COARSE = 1, /* the tick-grained wall clock: cheap */
    MONOSTAMP_SOURCE_MANUAL = 2           /* a value the caller sets: for tests */
} monostamp_source;

/* "realtime", "realtime_coarse", "manual"; NULL if not a source. */
MONOSTAMP_API const char *monostamp_source_name(int source);
/* Looks a source name up; MONOSTAMP_EINVAL if unknown. */
MONOSTAMP_API int monostamp_source_from_name(const char *name,
                                             monostamp_source *out);

/* Facts about a source, in the manner of Python's time.get_clock_info(). */
typedef struct monostamp_clock_info {
    const char *name;           /* "realtime", ... */
    const char *implementation; /* "clock_gettime(CLOCK_REALTIME)", ... */
    int64_t resolution_ns;      /* the step between two distinct readings */
    int adjustable;             /* 1 if the system (or caller) may step it */
    int monotonic;              /* 1 if it can never go backwards */
} monostamp_clock_info;

/* Fills `out` for `source`.  MONOSTAMP_EINVAL for an unknown source,
 * MONOSTAMP_ENOTSUP if this platform lacks it.  Thread-safe. */
MONOSTAMP_API int monostamp_clock_info_get(int source,
                                           monostamp_clock_info *out);

/* One raw reading of a platform source, in ns since the epoch, no policy
 * applied.  For benchmarks and tests; MONOSTAMP_ENOTSUP for "manual",
 * MONOSTAMP_EINVAL for an unknown source.  Thread-safe. */
MONOSTAMP_API int monostamp_source_read(int source, int64_t *out_ns);

/* ------------------------------------------------------------ the zones */

/* A time zone: the UTC offset at any instant.  Opened zones are immutable
 * from the caller's view and safe to share between threads; the engine
 * caches, per zone, the window of instants over which the offset holds. */
typedef struct monostamp_zone monostamp_zone;

#define MONOSTAMP_ZONE_NAME_MAX 255

/* Opens a zone by name: NULL or "" for the process's local zone (TZ, else
 * /etc/localtime), "UTC" (in any case; named "UTC"), an IANA name such as
 * "Europe/Berlin" (read from TZDIR, else the system tz database), or a
 * POSIX TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3".  A name never
 * reaches outside the zone database: an absolute name or one with a ".."
 * component is no zone, and only regular files are read (a FIFO is
 * refused, never waited on); TZ, set by the process owner, may still name
 * any file.  The local zone
 * follows TZ and /etc/localtime changes; named zones are fixed.
 * MONOSTAMP_ENOZONE if the name is unknown or the data malformed,
 * MONOSTAMP_EINVAL if the name is longer than MONOSTAMP_ZONE_NAME_MAX.
 * Thread-safe. */
MONOSTAMP_API int monostamp_zone_open(const char *name, monostamp_zone **out);
/* "Did you mean ...?" for a name monostamp_zone_open refused: the zone
 * name nearest `name` by edit distance (case ignored; swapped neighbours
 * cost one edit; a city alone, "berlin", is near its "Europe/Berlin"),
 * among "UTC" and the zones of the database monostamp_zone_open reads
 * (TZDIR, else the system's; none on Windows), if it is within a slip of
 * `name`: an edit for every four characters, one at least, three at most.
 * Ties go to the name first in byte order.  Writes it NUL-terminated into
 * `buf`: MONOSTAMP_OK; ENOZONE when no name is that near; ERANGE if it
 * does not fit `size` (MONOSTAMP_ZONE_NAME_MAX + 1 always does); EINVAL
 * for NULL or a `size` of 0.  Walks the database (a few ms): for error
 * messages, not a hot path.  Thread-safe. */
MONOSTAMP_API int monostamp_zone_suggest(const char *name, char *buf, size_t size);
/* Releases a zone from monostamp_zone_open; NULL is fine.  The last call on it. */
MONOSTAMP_API void monostamp_zone_close(monostamp_zone *zone);
/* The name the zone was opened with ("" for the local zone), valid until
 * it is closed.  Thread-safe. */
MONOSTAMP_API const char *monostamp_zone_name(const monostamp_zone *zone);
/* The offset, in seconds east of UTC, in force at `utc_ns`.  Steady state:
 * one range compare against a cached window; readers never write shared
 * memory.  Thread-safe. */
MONOSTAMP_API int monostamp_zone_offset(monostamp_zone *zone, int64_t utc_ns,
                                        int32_t *out_offset_s);
/* The fold of the local wall time of `utc_ns` in `zone` (Python's
 * datetime.fold, PEP 495): 1 in *out_fold if that wall time is the second
 * of two (the offset in force began at a change that set the clocks back
 * by d seconds, less than d seconds before), else 0; as CPython's zoneinfo
 * reads it, or for a local zone only the C library knows, as the naive
 * datetime.fromtimestamp() does.  Steady state: a range compare against
 * the cached window.  0, or MONOSTAMP_EINVAL for a NULL argument.
 * Thread-safe. */
MONOSTAMP_API int monostamp_zone_fold(monostamp_zone *zone, int64_t utc_ns, int *out_fold);
/* Says that TZ or the local zone file changed: the next offset of every
 * local zone re-reads its source.  Without this call a change is noticed
 * within the re-check interval.  Thread-safe, async-signal-unsafe. */
MONOSTAMP_API void monostamp_zone_changed(void);
/* How often (ns, default 1 s) the local zone's source is re-checked;
 * MONOSTAMP_EINVAL if not positive.  Thread-safe. */
MONOSTAMP_API int monostamp_zone_set_recheck_ns(int64_t interval_ns);

/* ------------------------------------------------------------ the clock */

/*
 * The lead bound.  A stamp may lead real time by at most a clock's
 * max_lead_ns, where "real time" is the clock's *reference*: a reading of
 * its source that never steps back.  For the platform sources it is the
 * monotonic clock plus an anchor, the highest (source reading - monotonic
 * reading) the clock's state has seen, sampled when the clock is made and
 * every few ms of readings, and kept in the state, so every clock on a
 * state file shares it.  When the wall clock is set back (NTP, a person, a
 * VM resume), the reference goes on from where it was: the policies
 * continue from the last stamp as they define, and no call fails or waits
 * for it.  When it is set forward, the reference follows at once.  Only
 * draws (stamps taken faster than real time advances, take(n)) run ahead
 * of the reference, and only they wait or fail, as on_lead says.  A state
 * found further ahead of the reference than a bounded clock could have put
 * it (a step the anchor never saw, across a reboot; a state file made
 * ahead) moves the anchor up to it: the bound then counts from where the
 * clock stands.  The manual source's reference is the highest reading it
 * was set or advanced away from.
 */
typedef enum monostamp_on_lead {
    /* Sleep until the reference catches up, but no longer than about
     * max_lead_ns + MONOSTAMP_LEAD_WAIT_MARGIN_NS in one call: then a
     * last read, and MONOSTAMP_ELEAD if the stamp still leads too far. */
    MONOSTAMP_ON_LEAD_WAIT = 0,
    MONOSTAMP_ON_LEAD_ERROR = 1  /* fail with MONOSTAMP_ELEAD, state unchanged */
} monostamp_on_lead;

/* What a waiting stamp allows beyond max_lead_ns for the scheduler. */
#define MONOSTAMP_LEAD_WAIT_MARGIN_NS INT64_C(100000000)

/* "wait", "error"; NULL if not an on_lead action.  Thread-safe. */
MONOSTAMP_API const char *monostamp_on_lead_name(int on_lead);
/* Looks an action name up; MONOSTAMP_EINVAL if unknown.  Thread-safe. */
MONOSTAMP_API int monostamp_on_lead_from_name(const char *name,
                                              monostamp_on_lead *out);

/* The lead bound a clock gets unless asked otherwise: 1 s.  A bound is
 * what keeps one caller (take(2**62), a runaway loop) from moving every
 * joiner of a state file years ahead for good, and what lets a new state
 * file start clear of every stamp a departed process handed out.  A
 * second is far above any lead a real burst reaches (the µs policy gains
 * about 1 ms of lead per ms of back-to-back stamps on one core, and waits
 * only past the bound), and small enough that no stamp is more than a
 * second away from the wall clock. */
#define MONOSTAMP_DEFAULT_MAX_LEAD_NS INT64_C(1000000000)

/* How to build a clock.  Start from monostamp_options_init(): a struct
 * zeroed by hand has max_lead_ns 0, "unbounded", not the default. */
typedef struct monostamp_options {
    int policy;              /* a monostamp_policy; default nanosecond increment */
    int source;              /* a monostamp_source; default realtime */
    const char *zone;        /* zone name for monostamp_zone_open; NULL: local */
    int64_t max_lead_ns;     /* how far stamps may run ahead of the source; default
                                MONOSTAMP_DEFAULT_MAX_LEAD_NS; 0: unbounded */
    int on_lead;             /* a monostamp_on_lead; manual sources always error */
    /* A state file shared across processes; NULL: private.  Its directory is
     * resolved when the clock is made (a relative path against the working
     * directory then) and kept open, so a later chdir() changes nothing;
     * a file deleted or replaced under the clock is followed, without a
     * stamp repeated (docs/clock-core.md).  A shared clock holds one file
     * descriptor. */
    const char *shared_path;
    int has_start_ns;        /* manual source only: start at start_ns ... */
    int64_t start_ns;        /* ... else at 0 */
    /* 0: a state file must be the caller's own (owned by the effective
     * user, not writable by group or others, not a symbolic link), else
     * MONOSTAMP_EUNSAFE.  1: a file of the caller's group will do too (owned
     * by another member of one of the caller's groups, mode 0660), and a
     * new file is made 0660; one that others can write is never used. */
    int trust_group;
} monostamp_options;

/* Fills `options` with the defaults.  Thread-safe. */
MONOSTAMP_API void monostamp_options_init(monostamp_options *options);

/* Checks `options` as monostamp_clock_init will, without opening anything:
 * 0, or MONOSTAMP_EINVAL with *bad_field (if not NULL) set to the name of
 * the first field that is wrong ("policy", "source", "on_lead",
 * "max_lead_ns", "start_ns", "zone", "shared_path"); the field's value is
 * the caller's to show, the rule monostamp_options_rule's (monostamp_host.h).  The zone is checked for length only, the file
 * not at all.  Thread-safe. */
MONOSTAMP_API int monostamp_options_check(const monostamp_options *options,
                                          const char **bad_field);
/* The counters a clock keeps, cumulative since the clock began.  They cost
 * no locked instruction, so they are exact while one thread at a time uses
 * the clock and lower bounds when threads race on it. */
typedef struct monostamp_stats {
    uint64_t readings;             /* source readings taken */
    uint64_t backward_steps;       /* readings below the clock's previous reading */
    int64_t largest_backward_ns;   /* the largest such step */
    uint64_t duplicates;           /* readings not above the last stamp (µs policy and
                                      grain: not in a later µs), so raised or held */
    uint64_t forced_increments;    /* stamps raised above their reading */
    int64_t lead_ns;               /* the last stamp minus its reading */
    int64_t max_lead_ns;           /* the largest lead seen */
    uint64_t lead_waits;           /* times the lead bound made a call wait */
    uint64_t lead_errors;          /* times the lead bound failed a call */
} monostamp_stats;

/* A stamp: an instant and the offset in force at it. */
typedef struct monostamp_stamp {
    int64_t utc_ns;
    int32_t offset_s;
} monostamp_stamp;

/*
 * A clock: opaque storage the caller owns and may embed anywhere (a stack
 * frame, a Python object, a Lua userdata), MONOSTAMP_CLOCK_SIZE bytes
 * aligned for int64_t, double and pointers.  Its contents are private and
 * may change between versions; the size and alignment change only with
 * MONOSTAMP_VERSION_MAJOR.  A clock must not be copied or moved once
 * initialised.  Hosts that cannot size a C struct (FFI) use
 * monostamp_clock_new() and monostamp_clock_free().
 */
#define MONOSTAMP_CLOCK_SIZE 512
typedef union monostamp_clock {
    unsigned char opaque[MONOSTAMP_CLOCK_SIZE];
    int64_t align_int64;
    double align_double;
    void *align_pointer;
} monostamp_clock;

/* Builds a clock in `clock` from `options` (NULL: the defaults).  Fails
 * with MONOSTAMP_EINVAL where monostamp_options_check() would,
 * MONOSTAMP_ENOZONE for a zone it cannot read, EFOREIGN, EVERSION or an
 * EOS code for a shared file it cannot use.  On failure the clock needs
 * no destroy.  Thread-safe for distinct clocks; `clock` itself must not
 * be in use. */
MONOSTAMP_API int monostamp_clock_init(monostamp_clock *clock,
                                       const monostamp_options *options);
/* Releases what the clock holds.  Safe on a zeroed clock and twice in a
 * row; no other thread may be using the clock.  Afterwards every call on
 * it that returns a code (the stamps, take, set_policy, manual_set and
 * _advance) returns MONOSTAMP_EINVAL, until monostamp_clock_init makes it
 * a clock again. */
MONOSTAMP_API void monostamp_clock_destroy(monostamp_clock *clock);

/* monostamp_clock_init on storage the library allocates, for hosts that
 * cannot embed MONOSTAMP_CLOCK_SIZE bytes themselves: 0 and *out, or an
 * error as for monostamp_clock_init (MONOSTAMP_ENOMEM too), *out then
 * NULL.  Thread-safe. */
MONOSTAMP_API int monostamp_clock_new(const monostamp_options *options,
                                      monostamp_clock **out);
/* Destroys and frees a clock from monostamp_clock_new (NULL is fine).
 * Must be the last call on it. */
MONOSTAMP_API void monostamp_clock_free(monostamp_clock *clock);

/* The next stamp: its instant under the clock's policy and the offset in
 * force at that instant.  MONOSTAMP_ELEAD under the lead bound's error
 * action, MONOSTAMP_ERANGE if the instant would pass INT64_MAX or the
 * source reads past 2262, an EOS code if the source cannot be read.
 * Thread-safe and lock-free: stamps from any threads (and processes on
 * one state) are distinct under the forcing policies. */
MONOSTAMP_API int monostamp_now(monostamp_clock *clock, monostamp_stamp *out);
/* The next stamp's instant alone (no offset work): same rules as
 * monostamp_now, one sequence with it.  Thread-safe. */
MONOSTAMP_API int monostamp_time_ns(monostamp_clock *clock, int64_t *out_ns);

/* The next stamp at whole-microsecond granularity, drawn from the same
 * state as monostamp_now: for values that hold no finer time (a Python
 * datetime; a double, which near today tells apart only instants ~240 ns
 * apart).  Under monotonicForceNanosecondIncrement it follows the µs
 * policy's rule (the reading floored to a whole µs, or the next whole µs
 * after the last stamp), so µs stamps are distinct, increase, and interleave
 * with the clock's ns stamps in one sequence; under the other policies it is
 * their stamp floored to the µs (the same guarantees, no more).  Errors as
 * for monostamp_now.  Thread-safe. */
MONOSTAMP_API int monostamp_now_us(monostamp_clock *clock, monostamp_stamp *out);
MONOSTAMP_API int monostamp_time_us(monostamp_clock *clock, int64_t *out_ns);

/* Reserves `n` (>= 1) consecutive stamps with one compare-and-swap: the
 * clock hands out first_ns, first_ns + step_ns, ... first_ns + (n-1) *
 * step_ns, and no other stamp of that state falls among them.  step_ns is
 * 1 under monotonicForceNanosecondIncrement and 1000 (whole µs) under
 * monotonicForceMicrosecondIncrement; it is given back because the policy
 * may change between calls (step_ns may be NULL).  The block obeys the lead
 * bound as a single stamp does, judged by its last stamp.  EINVAL if
 * n < 1; ERANGE if the block would pass INT64_MAX; ELEAD if it is longer
 * than max_lead_ns allows (no wait is tried); EPOLICY under the two
 * policies that do not make stamps unique; otherwise errors as for
 * monostamp_now.  On any error the state is unchanged.  Thread-safe. */
MONOSTAMP_API int monostamp_clock_take(monostamp_clock *clock, int64_t n,
                                       int64_t *first_ns, int64_t *step_ns);

/* The clock's policy, and a new one (takes effect for the next stamp;
 * MONOSTAMP_EINVAL if `policy` is not a policy).  Thread-safe: a stamp
 * under way uses the old or the new policy, whole. */
MONOSTAMP_API monostamp_policy monostamp_clock_policy(const monostamp_clock *clock);
MONOSTAMP_API int monostamp_clock_set_policy(monostamp_clock *clock, int policy);
/* What the clock was built with; they never change after init, so these
 * are thread-safe.  The zone is never NULL and lives as long as the
 * clock. */
MONOSTAMP_API monostamp_source monostamp_clock_source(const monostamp_clock *clock);
MONOSTAMP_API monostamp_zone *monostamp_clock_zone(const monostamp_clock *clock);
MONOSTAMP_API int64_t monostamp_clock_max_lead_ns(const monostamp_clock *clock);
MONOSTAMP_API monostamp_on_lead monostamp_clock_on_lead(const monostamp_clock *clock);
/* What a host does around each nap of a stamp that waits for its source
 * (on_lead = wait; naps last at most 10 ms).  before_nap(context) runs just
 * before the nap and returns a token; after_nap(context, token) runs just
 * after it, and nonzero ends the wait: the stamp fails with MONOSTAMP_EINTR,
 * the state unchanged.  Either may be NULL.  Both run in the waiting thread,
 * with whatever locks the caller of the stamp holds, and only while a stamp
 * waits: a stamp that does not wait never calls them.  For hosts with a
 * global lock to let go of during the nap and signal handlers to run after
 * it (Python's GIL and Ctrl-C). */
typedef struct monostamp_waiter {
    void *(*before_nap)(void *context);
    int (*after_nap)(void *context, void *token);
    void *context;
} monostamp_waiter;

/* Sets (or, with NULL, clears) the clock's waiter: MONOSTAMP_OK, or
 * MONOSTAMP_EINVAL for a NULL or destroyed clock.  Thread-safe: each nap
 * uses the waiter set when it began, before_nap and after_nap from the
 * same one, so a waiter replaced while a thread naps must stay valid until
 * that nap ends (static storage is simplest). */
MONOSTAMP_API int monostamp_clock_set_waiter(monostamp_clock *clock,
                                             const monostamp_waiter *waiter);

/* 1 if the clock's state lives in a shared file.  Thread-safe. */
MONOSTAMP_API int monostamp_clock_is_shared(const monostamp_clock *clock);

/* Manual source: sets the reading to `ns`, or moves it by `delta_ns`
 * (negative steps back).  MONOSTAMP_ENOTSUP on other sources,
 * MONOSTAMP_ERANGE if the sum overflows (reading unchanged).  Thread-safe:
 * concurrent advances add up. */
MONOSTAMP_API int monostamp_manual_set(monostamp_clock *clock, int64_t ns);
MONOSTAMP_API int monostamp_manual_advance(monostamp_clock *clock,
                                           int64_t delta_ns);

/* Copies the counters.  Each is read atomically, the set is not a
 * snapshot.  Thread-safe. */
MONOSTAMP_API void monostamp_clock_stats(const monostamp_clock *clock,
                                         monostamp_stats *out);

/* ----------------------------------------------------- the default clock */

/* The process-wide default clock: realtime source, local zone, policy
 * MONOSTAMP_DEFAULT_POLICY.  Its state is made when the library loads, in
 * memory that fork() shares, so a parent and its children draw from one
 * sequence; when the environment variable MONOSTAMP_SHARED names a file it
 * uses that file instead, joining every process that does the same.
 * Returns 0 and the clock, or the error that made it unusable (a bad
 * MONOSTAMP_SHARED file, say) on every call.  Thread-safe. */
MONOSTAMP_API int monostamp_default_clock(monostamp_clock **out);
/* Creates a state file at `path` whose sequence starts at the wall clock
 * ("no stamp yet"), where a file made by a clock starts its lead bound
 * ahead of it.  Only for a path in a directory the caller made itself for
 * this sequence (a test runner's private directory), where no earlier
 * sequence can have handed out stamps that a new one might repeat; clocks
 * then join it with shared_path as usual.  `trust_group` as in
 * monostamp_options.  MONOSTAMP_EEXIST if a file is already at the path
 * (left as it is), MONOSTAMP_EINVAL for an empty path, else errors as for
 * a clock's shared_path.  Thread-safe. */
MONOSTAMP_API int monostamp_state_file_create(const char *path, int trust_group);

/* What a state file says of its sequence, read by monostamp_state_file_info. */
typedef struct monostamp_state_info {
    int64_t last_ns;     /* the last stamp handed out; INT64_MIN: none yet; INT64_MAX:
                            retired (its sequence moved to a file that replaced it) */
    int64_t max_lead_ns; /* the file's one lead bound: the tightest any reader of it
                            promised (every clock on it keeps it); 0: none yet */
    int64_t joins;       /* how many times a clock, of any process and language, joined
                            the file (or moved onto it), whether or not it stamped */
} monostamp_state_info;

/* Reads the state file at `path` without creating, mapping or changing it.
 * MONOSTAMP_OK and *out; an EOS code (ENOENT: no file there)
 * MONOSTAMP_EFOREIGN for a file that is not a state file;
 * MONOSTAMP_EVERSION for another layout; MONOSTAMP_EINVAL for a NULL or
 * empty argument.  The three values are read one by one (no snapshot).  Thread-safe. */
MONOSTAMP_API int monostamp_state_file_info(const char *path, monostamp_state_info *out);

/* What the clocks on a state file counted, summed over every clock of any
 * process that published into it (monostamp_clock_publish). */
typedef struct monostamp_counts {
    uint64_t stamps;         /* stamps handed out */
    uint64_t repeats;        /* of them, made from a reading (at the caller's grain) not
                                above the last stamp: repeats without monostamp */
    uint64_t backward_steps; /* readings below their clock's previous reading */
    int64_t largest_lead_ns; /* the largest lead of a stamp over its reading (>= 0), of
                                real-clock sources only (a manual one's is no lead) */
} monostamp_counts;
/* Reads the counts of the state file at `path`, with the errors of
 * monostamp_state_file_info: numbers any process on the file may have
 * written, not checked further.  Thread-safe. */
MONOSTAMP_API int monostamp_state_file_counts(const char *path, monostamp_counts *out);
/* Adds what `clock` counted and has not published yet (not what it counted
 * before it joined its file) to the counts of the state file at `path`
 * (NULL: its own).  A shared clock publishes itself at its checkpoints,
 * when it leaves its file and, the default clock, at exit.  ENOTSUP for
 * NULL on a clock that shares no file, EINVAL for an empty path or a
 * destroyed clock, else a shared_path's errors (nothing is created).
 * Thread-safe. */
MONOSTAMP_API int monostamp_clock_publish(monostamp_clock *clock, const char *path);

/* Moves the default clock onto the state file at `path` (created if
 * absent), as if MONOSTAMP_SHARED had named it when the library loaded: for
 * programs that learn the path later, such as a test runner.  The file's
 * sequence is first raised to the default clock's last stamp, so stamps
 * keep increasing.  Call it while no other thread takes default stamps:
 * one taken during the move may be repeated later.  Errors as for a
 * clock's shared_path; on error the default clock is unchanged. */
MONOSTAMP_API int monostamp_default_share(const char *path);
/* Shortcuts on the default clock: its error, else monostamp_now /
 * monostamp_time_ns on it.  Thread-safe. */
MONOSTAMP_API int monostamp_default_now(monostamp_stamp *out);
MONOSTAMP_API int monostamp_default_time_ns(int64_t *out_ns);
/* Squeak's `Time clockPolicy`: the default clock's policy (the default
 * policy if the clock is unusable), and a new one (MONOSTAMP_EINVAL if not
 * a policy, else the default clock's error or 0).  Thread-safe. */
MONOSTAMP_API monostamp_policy monostamp_get_policy(void);
MONOSTAMP_API int monostamp_set_policy(int policy);

/* ------------------------------------------------------------ UUIDv7 ids
 *
 * RFC 9562 version 7 ids made from stamps, with no counter of their own:
 *   48-bit Unix ms | version 7 | 12 bits | variant 10 | 8 bits | 54 random
 * where the 12 + 8 bits are the stamp's sub-millisecond part as a 20-bit
 * fraction of a ms, floor(ns_in_ms * 2^20 / 10^6).  Its top 12 bits are
 * RFC 9562's method-3 value; as a fraction step is finer than 1 ns, ids
 * from distinct stamps differ in their first 64 bits and sort as the stamps
 * do, and the stamp is recovered exactly (monostamp_uuid7_ns).  The random
 * bits come from the OS's generator through a per-thread buffer that a
 * fork()ed child never reuses.  A stamp before 1970 has no id:
 * MONOSTAMP_ERANGE (48 bits of ms reach past int64 ns's year 2262). */

/* Canonical text: 36 lowercase characters, 8-4-4-4-12, and a NUL. */
#define MONOSTAMP_UUID_TEXT_SIZE 37

/* The next stamp of `clock`, as an id.  Errors as for monostamp_time_ns,
 * MONOSTAMP_ERANGE for a stamp before 1970, or an EOS code if the OS's
 * generator fails.  Ids from one clock (or state file) increase exactly
 * where its stamps do: under the two forcing policies, always.
 * Thread-safe. */
MONOSTAMP_API int monostamp_uuid7(monostamp_clock *clock, uint8_t out[16]);

/* The id of a given stamp with fresh random bits.  Thread-safe. */
MONOSTAMP_API int monostamp_uuid7_from_ns(int64_t utc_ns, uint8_t out[16]);

/* The id of `utc_ns` with the low 54 bits of `random_bits` as its tail: a
 * pure function, for tests and for callers with their own generator. */
MONOSTAMP_API int monostamp_uuid7_pack(int64_t utc_ns, uint64_t random_bits,
                                       uint8_t out[16]);

/* The stamp an id was made from: 0; MONOSTAMP_ENOTV7 if `id` is not
 * version 7 with the RFC variant, or its 20 fraction bits are a value no
 * nanosecond maps to (a UUIDv7 from another generator, most likely).
 * Thread-safe. */
MONOSTAMP_API int monostamp_uuid7_ns(const uint8_t id[16], int64_t *out_ns);

/* Any 16-byte UUID as canonical text into `out` (MONOSTAMP_UUID_TEXT_SIZE
 * bytes).  Thread-safe. */
MONOSTAMP_API void monostamp_uuid_format(const uint8_t id[16], char *out);

/* Parses `len` bytes of canonical text (either case, no braces or URN
 * prefix) into 16 bytes: 0, or MONOSTAMP_EINVAL.  Thread-safe. */
MONOSTAMP_API int monostamp_uuid_parse(const char *text, size_t len, uint8_t out[16]);

/* ------------------------------------------------------------ wall time */

/* The wall-clock reading of an instant at a UTC offset, in the proleptic
 * Gregorian calendar (no leap seconds), as a binding hands it to its
 * date type.  Counted as ISO 8601 counts: months, days, weekdays and days
 * of the year from 1. */
typedef struct monostamp_wall {
    int year;            /* 1609..2330 for any int64 ns and int32 offset */
    int month;           /* 1..12 */
    int day;             /* 1..31 */
    int hour;            /* 0..23 */
    int minute;          /* 0..59 */
    int second;          /* 0..59 */
    int32_t nanosecond;  /* 0..999999999, utc_ns's own: an offset is whole seconds */
    int weekday;         /* 1 Monday .. 7 Sunday */
    int yday;            /* 1..366: 1 January is 1 */
} monostamp_wall;

/* Fills `out` with the local wall time of `utc_ns` at `offset_s` (seconds
 * east of UTC, any int32: the sum is taken exactly).  Floors, never rounds:
 * an instant before the epoch is in the second that holds it.  0, or
 * MONOSTAMP_EINVAL for a NULL `out`.  Pure; thread-safe. */
MONOSTAMP_API int monostamp_wall_fields(int64_t utc_ns, int32_t offset_s,
                                        monostamp_wall *out);
/* The other way: the seconds from 1970-01-01T00:00 to `w`'s year, month,
 * day, hour, minute and second on its own wall clock (subtract the offset
 * for the UTC instant).  Its other fields are ignored and nothing is
 * checked: month 1..12, day 1..31 (31 February is 3 March), hour, minute
 * and second 0..59 or beyond, |year| below 2^31.  Pure; thread-safe. */
MONOSTAMP_API int64_t monostamp_wall_seconds(const monostamp_wall *w);

/* ------------------------------------------------------------- seconds */

/* `s` seconds and `sub_ns` nanoseconds (0 <= sub_ns < 1000000000) as int64
 * ns since the epoch, exactly, to the very ends of the range (INT64_MIN is
 * -9223372037 s + 145224192 ns): 0 and *out_ns, or MONOSTAMP_ERANGE
 * outside int64 ns, MONOSTAMP_EINVAL for a `sub_ns` outside its range.
 * Pure; thread-safe. */
MONOSTAMP_API int monostamp_ns_from_seconds(int64_t s, int64_t sub_ns, int64_t *out_ns);
/* Float seconds as int64 ns.  `round_up` 0: an instant, from the exact
 * fraction of `s`, rounded to the nearest ns, half to even (Python's
 * datetime.fromtimestamp rounds so, to µs).  `round_up` 1: a duration,
 * `s` * 1e9 rounded up, so that a sleep is never shorter than asked.
 * MONOSTAMP_ERANGE for NaN, infinities and results outside int64 ns.  No
 * libm: pure; thread-safe. */
MONOSTAMP_API int monostamp_ns_from_double(double s, int round_up, int64_t *out_ns);

/* --------------------------------------------------- ISO 8601 / RFC 3339 */

/* The longest text monostamp_format_iso8601 writes, without the NUL:
 * "9999-12-31T23:59:59.999999999+99:59". */
#define MONOSTAMP_ISO8601_MAX 35

/* Precisions of monostamp_format_iso8601 that stop before the seconds:
 * "2026-12-02T15:11+01:00" and "2026-12-02T15+01:00". */
#define MONOSTAMP_ISO8601_MINUTES (-1)
#define MONOSTAMP_ISO8601_HOURS (-2)

/* Writes the local time of `utc_ns` at `offset_s` as
 * "2026-12-02T15:11:20.123456789+01:00": `digits` (0..9) fractional
 * digits, truncated (or MONOSTAMP_ISO8601_MINUTES / _HOURS: no seconds, no
 * minutes either), and "Z" for a zero offset when `use_z` is set.
 * Writes a NUL if it fits and returns the length (without NUL);
 * MONOSTAMP_EINVAL for bad digits or an offset beyond +-23:59:59 that is
 * not whole minutes, MONOSTAMP_ERANGE if the local year is outside
 * 1..9999, `size` is too small (buffer untouched), or the text, truncated,
 * would name an instant before INT64_MIN ns, which
 * monostamp_parse_iso8601 could not take back.  Thread-safe. */
MONOSTAMP_API int monostamp_format_iso8601(char *buf, size_t size,
                                           int64_t utc_ns, int32_t offset_s,
                                           int digits, int use_z);

/* Where and why a parse failed. */
typedef struct monostamp_parse_error {
    size_t position;     /* byte offset into the text */
    const char *reason;  /* static text, e.g. "expected ':' between hour and minute" */
} monostamp_parse_error;

/* Parses "YYYY-MM-DDThh:mm:ss[.f{1,9}](Z|+hh:mm|-hh:mm|+hhmm|-hhmm)" ('T',
 * 't' or ' ' between date and time; 'z' too for Z, as RFC 3339 allows)
 * back to the instant and its offset,
 * exactly.  The whole `len` bytes must match.  On MONOSTAMP_ESYNTAX or
 * MONOSTAMP_ERANGE, `error` (if not NULL) says where and why.
 * Thread-safe. */
MONOSTAMP_API int monostamp_parse_iso8601(const char *text, size_t len,
                                          int64_t *out_utc_ns,
                                          int32_t *out_offset_s,
                                          monostamp_parse_error *error);

/* ------------------------------------------------------------- sleeping */

/* Sleeps until CLOCK_MONOTONIC reaches `deadline_ns`, waking no earlier
 * and at most `tolerance_ns` later when the machine allows it.  Resumes
 * after signals.  MONOSTAMP_EINVAL for a negative tolerance.  Thread-safe. */
MONOSTAMP_API int monostamp_sleep_until(int64_t deadline_ns,
                                        int64_t tolerance_ns);
/* Sleeps for `duration_ns` (>= 0) with the same contract; MONOSTAMP_EINVAL
 * if negative, MONOSTAMP_ERANGE if the deadline overflows.  Thread-safe. */
MONOSTAMP_API int monostamp_sleep_for(int64_t duration_ns,
                                      int64_t tolerance_ns);
/* CLOCK_MONOTONIC in ns (QueryPerformanceCounter on Windows): the time
 * base of monostamp_sleep_until.  Thread-safe. */
MONOSTAMP_API int64_t monostamp_monotonic_ns(void);
/* The tolerance used when a binding is given none. */
#define MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS 50000

/* The kit for bindings (a host language's sleep, the sentences of its
 * errors, the rules at its edge) is in monostamp_host.h. */

#ifdef __cplusplus
}
#endif

#endif /* MONOSTAMP_H */
