/*
 * monostamp_host.h: the kit for bindings, apart from the user's manual
 * (monostamp.h).  A host language's binding (the Python extension, the Lua
 * modules, an FFI host) finds here what it needs beyond the API: the codes
 * listed by name, its sleep as a plan of steps, the rules at its edge, and
 * the sentences of its errors.  Every sentence is written once, here, in
 * ASCII; a binding puts its own prefix before it (Python's "Clock(): ",
 * Lua's "bad argument #1 to 'clock' (...)") and changes nothing inside.
 * C99-, C11- and C++-includable, as monostamp.h.
 */
#ifndef MONOSTAMP_HOST_H
#define MONOSTAMP_HOST_H

#include "monostamp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------- codes by name */

/* The short name of one of the core's own codes ("EINVAL" for
 * MONOSTAMP_EINVAL, ..., "EEXIST"), or NULL for success, an unknown code
 * and the MONOSTAMP_EOS codes.  Thread-safe. */
MONOSTAMP_API const char *monostamp_error_name(int code);
/* The core's own codes in turn (MONOSTAMP_ERRNO_MAP's order): the `i`th
 * from 0, or 0 past the last, so that a host lists its constants with
 * i = 0, 1, ... up to the 0.  Thread-safe. */
MONOSTAMP_API int monostamp_error_code(int i);

/* The POSIX errno (<errno.h>) of a MONOSTAMP_EOS code, else 0: on POSIX
 * what monostamp_os_errno gives; on Windows the C runtime's errno for the
 * Windows code inside, as the runtime maps its own failures
 * (ERROR_FILE_NOT_FOUND and ERROR_PATH_NOT_FOUND are ENOENT,
 * ERROR_ACCESS_DENIED is EACCES, ...), or 0 for a Windows code no errno
 * fits.  For hosts whose convention is errno on every system (Lua's
 * io.open).  Thread-safe. */
MONOSTAMP_API int monostamp_errno_of(int code);

/* 1 if `code`, from a call given a state file (a clock's shared_path,
 * MONOSTAMP_SHARED, monostamp_state_file_create, monostamp_default_share),
 * is the file's doing, so that a message should name the file: an OS
 * failure (the file or its directory could not be opened, mapped or
 * locked), MONOSTAMP_EFOREIGN, MONOSTAMP_EVERSION, MONOSTAMP_EUNSAFE or
 * MONOSTAMP_EEXIST.  0 for every other code (the options, the zone, memory,
 * success).  Thread-safe. */
MONOSTAMP_API int monostamp_state_file_fault(int code);

/* The policy's constant above without its prefix
 * ("MONOTONIC_FORCE_NANOSECOND_INCREMENT", ...): the name a binding's
 * enumeration gives the policy (Python's monostamp.Policy members), or NULL
 * if `policy` is not a policy.  Thread-safe. */
MONOSTAMP_API const char *monostamp_policy_constant(int policy);

/* The rule a field named by monostamp_options_check() broke, as a phrase
 * to follow the field's name and value: "must be >= 0" for
 * "max_lead_ns", say; NULL for a name that is not a field.  Bindings build
 * their message from the two, so every rule is written once, here.
 * Thread-safe. */
MONOSTAMP_API const char *monostamp_options_rule(const char *field);

/* Writes the sentence for the options field `field` that
 * monostamp_options_check() refused, given as `value`: the option as the
 * bindings name it ("shared" for "shared_path"), `value` as the host wrote
 * it, quoted if `is_text` (its first 40 bytes, cut at a character, and
 * "...' (N bytes)" if longer), and the field's rule ("is not accepted"
 * without one): "max_lead_ns=-1 must be >= 0", "zone='xx...' (300 bytes)
 * must be a zone name of at most 255 bytes".  Returns the length;
 * MONOSTAMP_ERANGE if cut short (the field and 300 bytes always fit when
 * `is_text`), MONOSTAMP_EINVAL for a NULL argument or a `size` of 0.
 * Thread-safe. */
MONOSTAMP_API int monostamp_options_fault(const char *field, const char *value, int is_text,
                                          char *buf, size_t size);

/* Flags of monostamp_draw(). */
#define MONOSTAMP_DRAW_US 1u     /* the µs grain, as monostamp_now_us / monostamp_time_us */
#define MONOSTAMP_DRAW_OFFSET 2u /* the offset too, as monostamp_now; else offset_s is 0 */

/* A stamp as monostamp_now, monostamp_time_ns, monostamp_now_us or
 * monostamp_time_us make it (chosen by `flags`), one sequence with them,
 * under a lead bound of the call's own: `max_lead_ns` where it is tighter
 * than the clock's (0: the clock's own).  For a host that promises its own
 * callers a tighter bound on a clock others draw from too, such as
 * Python's patch() on the default clock.  Waits or fails as the clock's
 * on_lead says; under "wait", a call that has waited as long as one call
 * may (max_lead_ns + MONOSTAMP_LEAD_WAIT_MARGIN_NS of the clock) for the
 * tighter bound gets a stamp within the clock's own bound instead of
 * failing.  MONOSTAMP_EINVAL for a negative bound or unknown flags;
 * otherwise errors as for monostamp_now.  Thread-safe. */
MONOSTAMP_API int monostamp_draw(monostamp_clock *clock, unsigned flags, int64_t max_lead_ns,
                                 monostamp_stamp *out);

/* The precision Python's datetime.isoformat(timespec=) names, for
 * monostamp_format_iso8601 of `utc_ns`: "hours", "minutes", "seconds" (0
 * digits), "milliseconds" (3), "microseconds" (6), "nanoseconds" (9), or
 * "auto" (9 digits, none for a whole second).  0 and *out_digits, or
 * MONOSTAMP_EINVAL for another name.  Thread-safe. */
MONOSTAMP_API int monostamp_iso8601_timespec(const char *name, int64_t utc_ns,
                                             int *out_digits);

/* ------------------------------------------------------------ sleeping */

/*
 * A sleep finished in a host language (the bindings' sleeps).  The core
 * wakes within a fraction of a us of its deadline, but an interpreter's
 * code runs later after a long sleep (its way back is cold).  So a
 * binding's sleep is a plan of steps: the core sleeps to a learned *lead*
 * before the deadline, then the host spins in its own language to the
 * deadline, which keeps the caller's code on time (docs/sleep.md).  The
 * lead is learned here per band of lengths, one table per copy of the core
 * (so per binding: each embeds its own), shared by its threads (atomics).
 *
 * The binding reads the clock first (monostamp_monotonic_ns), checks its
 * arguments, calls monostamp_sleep_begin, then does what each step says,
 * calling monostamp_sleep_step after each MONOSTAMP_SLEEP_NAP:
 *
 *   MONOSTAMP_SLEEP_NAP   monostamp_sleep_until(until_ns, until_tolerance_ns)
 *                         (its lock released; a scheduler may wait instead),
 *                         run the host's signal handlers or hooks, then step
 *                         with a new reading.  At most 50 ms each, so that
 *                         the host can be interrupted.  After a nap with
 *                         `last_nap` set the reading measures the host's way
 *                         back: take it in the host language, first thing.
 *   MONOSTAMP_SLEEP_WARM  take once the path the sleep's end will take (the
 *                         binding's own sleep to a past deadline), then spin.
 *   MONOSTAMP_SLEEP_SPIN  spin in the host language until a reading of the
 *                         monotonic clock >= deadline_ns: the only exit, so
 *                         the sleep is never early.
 *   MONOSTAMP_SLEEP_DONE  return to the caller.
 */
typedef struct monostamp_sleep_plan {
    int64_t deadline_ns;        /* the sleep's deadline, as begun */
    int64_t until_ns;           /* NAP: sleep to this, */
    int64_t until_tolerance_ns; /* at this tolerance */
    int last_nap;               /* NAP: the core's part ends with this one */
    int64_t core_[4];           /* the core's own: never read or written */
} monostamp_sleep_plan;
/* What a plan takes: an FFI host declares the struct as above, core_
 * included, and copies nothing out of core_. */
#define MONOSTAMP_SLEEP_PLAN_SIZE 64

/* The steps (what monostamp_sleep_begin and _step return). */
enum {
    MONOSTAMP_SLEEP_DONE = 0,
    MONOSTAMP_SLEEP_NAP = 1,
    MONOSTAMP_SLEEP_SPIN = 2,
    MONOSTAMP_SLEEP_WARM = 3
};

/* The bounds of the learned lead, in ns. */
#define MONOSTAMP_SLEEP_LEAD_MIN_NS 15000
#define MONOSTAMP_SLEEP_LEAD_MAX_NS 250000

/* Begins a sleep to `deadline_ns` at `tolerance_ns` (>= 0, checked by the
 * caller) from `now_ns`, the binding's first reading; returns the first
 * step.  `finish` 0: no lead and no spin, the core alone to the deadline at
 * the tolerance (still in naps of at most 50 ms).  Thread-safe. */
MONOSTAMP_API int monostamp_sleep_begin(monostamp_sleep_plan *plan,
                                        int64_t deadline_ns,
                                        int64_t tolerance_ns, int64_t now_ns,
                                        int finish);
/* The step after a nap, from `now_ns`, a reading taken since.  A plan
 * belongs to one sleep, in one thread; the leads it feeds are shared. */
MONOSTAMP_API int monostamp_sleep_step(monostamp_sleep_plan *plan,
                                       int64_t now_ns);

/* ------------------------------------------------- text for the bindings */

/* Writes what `clock` was made with, NUL-terminated, into `buf`: "source,
 * policy, zone 'name'" ('local' for the local zone), then ", max_lead_ns N
 * action" when it has a lead bound and ", shared" when it shares a state
 * file; as "manual, monotonicForceNanosecondIncrement, zone 'UTC'".  Returns
 * the length; MONOSTAMP_ERANGE if cut short to fit `size` (128 bytes plus
 * the zone's name always fit), MONOSTAMP_EINVAL for a NULL `buf` or a
 * `size` of 0.  Thread-safe as the clock's getters are. */
MONOSTAMP_API int monostamp_clock_describe(const monostamp_clock *clock, char *buf,
                                           size_t size);
/* Writes the sentence for a zone name monostamp_zone_open refused with
 * MONOSTAMP_ENOZONE: "zone='X' is not a zone this machine knows -- did you
 * mean 'Y'?" with monostamp_zone_suggest's name, else "... -- give 'UTC',
 * an IANA name such as 'Europe/Berlin' (from TZDIR, else the system's
 * database) or a POSIX TZ string such as 'CET-1CEST,M3.5.0,M10.5.0/3'".
 * Returns the length; MONOSTAMP_ERANGE if cut short (2 *
 * MONOSTAMP_ZONE_NAME_MAX + 256 bytes always fit), MONOSTAMP_EINVAL for a
 * NULL argument or a `size` of 0.  Walks the zone database as
 * monostamp_zone_suggest does: for error messages.  Thread-safe. */
MONOSTAMP_API int monostamp_zone_unknown(const char *name, char *buf, size_t size);
/* Writes the sentence for `name`, a clock option no binding knows (a
 * keyword, a table key): "unknown option 'zonez' -- did you mean 'zone'?"
 * with the nearest of the options (policy, source, zone, max_lead_ns,
 * on_lead, shared, start_ns, trust_group) within a slip of it, else
 * "unknown option 'x' -- the options are policy, source, ...".  Returns the
 * length, 0 (and "") when `name` is one of the options, so that a binding
 * checks a name with this call alone; MONOSTAMP_ERANGE if cut short (256
 * bytes always fit),
 * MONOSTAMP_EINVAL for a NULL argument or a `size` of 0.  Thread-safe. */
MONOSTAMP_API int monostamp_option_unknown(const char *name, char *buf, size_t size);
/* Checks `options` as monostamp_options_check() does, and writes
 * monostamp_options_fault()'s sentence for the field it refuses, its value
 * taken from `options` (a string quoted, one past 40 bytes cut short with
 * its length after it):
 * "max_lead_ns=-1 must be >= 0", "zone='xxx...' (300 bytes) must be a zone
 * name of at most 255 bytes", "shared='' must be a non-empty path".
 * Returns options_check's code, with "" in `buf` when it is 0; cut short to
 * fit `size` (256 bytes always fit); MONOSTAMP_EINVAL for a NULL `buf` or a
 * `size` of 0.  Thread-safe. */
MONOSTAMP_API int monostamp_options_text(const monostamp_options *options, char *buf,
                                         size_t size);
/* Writes the sentence for `code`, a failure of monostamp_clock_init or
 * monostamp_clock_new given `options`, when the zone or the state file it
 * names is to blame: monostamp_zone_unknown's for MONOSTAMP_ENOZONE of a
 * named zone, monostamp_state_file_text's for "shared" when
 * monostamp_state_file_fault(code) says so.  Returns the length; 0 (and "")
 * when neither is to blame, so that the binding names the call and gives
 * monostamp_strerror's; MONOSTAMP_ERANGE if cut short (the path plus 2 *
 * MONOSTAMP_ZONE_NAME_MAX + 256 bytes always fit), MONOSTAMP_EINVAL for a
 * NULL argument or a `size` of 0.  Reads the file system as
 * monostamp_state_file_text does; thread-safe. */
MONOSTAMP_API int monostamp_clock_init_fault(int code, const monostamp_options *options, char *buf,
                                             size_t size);
/* Writes the sentence for `code`, a failure of `call` on `clock`:
 * "take" (monostamp_clock_take, `value` its n) or a manual move ("set",
 * "advance" or the binding's name for one; `value` its ns), and returns the
 * argument to blame: 2 the value ("n=0 must be >= 1", "n=N stamps would
 * pass the int64 range", "ns=N would move the reading past the int64
 * nanosecond range (years 1677..2262) -- give a smaller step", "ns=-1 is
 * negative -- give ns >= 0"), 1 the clock ("set needs a clock with source
 * 'manual', this one's is 'realtime' -- make the clock with
 * source='manual'"), 0 neither: the clock's state, with "the clock's
 * policy P allows equal stamps, so it has no blocks; take needs ..." for
 * take's MONOSTAMP_EPOLICY.  Any other `call` ("now", "uuid7", ...) is a
 * draw: 0 with the clock's state, MONOSTAMP_ERANGE "the next stamp would
 * pass the largest int64 nanosecond (...)".  MONOSTAMP_ELEAD, for any
 * call: 0 and "the next stamp would lead the source by more than
 * max_lead_ns=N -- " and the fix that fits the clock (take: "n=N stamps
 * would lead ...").  "" for every other code.  Cut short to fit `size` (256
 * bytes always fit); MONOSTAMP_EINVAL for a NULL argument or a `size` of
 * 0.  Thread-safe as the clock's getters are. */
MONOSTAMP_API int monostamp_clock_fault(const monostamp_clock *clock, const char *call, int code,
                                        int64_t value, char *buf, size_t size);
/* Writes the sentence for `code` and `error`, a failure of
 * monostamp_parse_iso8601 on the `len` bytes at `text`: the text quoted
 * (its first 40 bytes, cut at a character, and "..." if longer), the
 * 1-based character (UTF-8) where it failed and the reason, then for
 * MONOSTAMP_ESYNTAX the fix: "'2026-12-02X15:11:20Z' at character 11:
 * expected 'T', 't' or ' ' between date and time -- give RFC 3339 text as
 * isoformat writes it, such as '2026-12-02T15:11:20.123456789+01:00'".
 * Returns the length; MONOSTAMP_ERANGE if cut short (320 bytes always fit),
 * MONOSTAMP_EINVAL for a NULL argument or a `size` of 0.  Thread-safe. */
MONOSTAMP_API int monostamp_parse_fault(const char *text, size_t len, int code,
                                        const monostamp_parse_error *error, char *buf,
                                        size_t size);

/* The rules at a binding's edge, each a sentence monostamp_rule_text
 * words about an argument `name` (with the binding's call before it, if it
 * likes: "Clock(): max_lead_ns") and its `value` as the host writes it
 * ("-0.5", "inf", "18446744073709551616"), so that a value past what the
 * core can take is worded too.  The core's own checks below use them. */
enum {
    MONOSTAMP_RULE_NOT_NEGATIVE = 1, /* "seconds must be >= 0, not -0.5" */
    MONOSTAMP_RULE_INT64 = 2,        /* "n=2**64 is out of range -- give an integer within
                                      * int64 (...)" */
    MONOSTAMP_RULE_SECONDS = 3,      /* "seconds=inf is out of range -- give a finite number of
                                      * seconds within int64 nanoseconds (under 292 years)" */
    MONOSTAMP_RULE_OFFSET = 4,       /* "offset=90000 is out of range -- give seconds east of
                                      * UTC within +-86399" (monostamp_offset_check) */
    MONOSTAMP_RULE_OFFSET_MINUTES = 5, /* "offset=30 s is not whole minutes, which RFC 3339
                                        * needs" (to format) */
    MONOSTAMP_RULE_DIGITS = 6,       /* "digits=10 is out of range -- give 0..9, the digits of
                                      * the fraction of a second" */
    MONOSTAMP_RULE_NUL = 7           /* "zone has a NUL character at byte 4 -- give text without
                                      * NUL characters" (`value` the 1-based byte of the first
                                      * NUL: a C string would end there) */
};
/* Writes the sentence of `rule` for `name` and `value`.  Returns the
 * length; MONOSTAMP_ERANGE if cut short (160 bytes plus the two strings
 * always fit), MONOSTAMP_EINVAL for an unknown rule, a NULL argument or a
 * `size` of 0.  Thread-safe. */
MONOSTAMP_API int monostamp_rule_text(int rule, const char *name, const char *value, char *buf,
                                      size_t size);
/* Writes the sentence for `code`, a failure of the default clock, when
 * the state file MONOSTAMP_SHARED names is to blame
 * (monostamp_state_file_fault): monostamp_state_file_text's for
 * "MONOSTAMP_SHARED" and the variable as getenv gives it now
 * ("MONOSTAMP_SHARED='/x/s': not a monostamp state file, or truncated").
 * Returns the length; 0 (and "" in `buf`) when the file is not to blame or
 * the variable is unset or empty: the binding then names the call.
 * MONOSTAMP_ERANGE if cut short (200 bytes plus the path always fit),
 * MONOSTAMP_EINVAL for a NULL `buf` or a `size` of 0.  Thread-safe as
 * getenv is. */
MONOSTAMP_API int monostamp_default_context(int code, char *buf, size_t size);

/* Writes the line that says what the clocks on a state file counted
 * between two reads of its counts, `before` (NULL: since it was made) and
 * `after` (monostamp_state_file_counts): "monostamp: 13 stamps handed out,
 * 12 would have repeated without monostamp, 1 backward step met, largest
 * lead 1.000000012 s", counts grouped by "," (20,271), the lead exact in the
 * largest unit it reaches (12 ns, 1.500 us, 2.000001 ms).  A count that went
 * down reads as a sum that wrapped (any process may write them); the lead
 * is `after`'s (a maximum cannot be taken apart), 0 if nothing was counted
 * between.  The pytest plugin's summary, `monostamp stats`, `monostamp run
 * --report`.  Returns the length; MONOSTAMP_ERANGE if cut short (256 bytes
 * always fit), MONOSTAMP_EINVAL for a NULL `after` or `buf` or a `size` of
 * 0.  Pure; thread-safe. */
MONOSTAMP_API int monostamp_counts_text(const monostamp_counts *before,
                                        const monostamp_counts *after, char *buf, size_t size);

/* Writes the names the options field `field` takes (monostamp_option_name's,
 * in value order), each in single quotes, joined by ", ": for "on_lead"
 * "'wait', 'error'", the end of a binding's "must be one of ..." message.
 * Returns the length; MONOSTAMP_ERANGE if cut short (256 bytes always fit),
 * MONOSTAMP_EINVAL for a field without names, a NULL `buf` or a `size` of 0
 * (then "" when `buf` can hold it).  Thread-safe. */
MONOSTAMP_API int monostamp_option_names(const char *field, char *buf, size_t size);

/* ------------------------------------------------- rules at a binding's edge */

/* The name of `value` for the options field `field` ("policy": its Squeak
 * name, "source", "on_lead"), as monostamp_policy_name and its kin give it;
 * NULL past the last value or for another field.  A binding lists a
 * field's names for a message with value 0, 1, ... up to the NULL.
 * Thread-safe. */
MONOSTAMP_API const char *monostamp_option_name(const char *field, int value);
/* The value the name `name` gives the options field `field`: one of
 * monostamp_option_name's names, or for "policy" also its constant's name
 * ("MONOTONIC_FORCE_NANOSECOND_INCREMENT", monostamp_policy_constant), the
 * name a binding's enumeration gives it.  0 and *out, or MONOSTAMP_EINVAL
 * for an unknown name or field.  Thread-safe. */
MONOSTAMP_API int monostamp_option_from_name(const char *field, const char *name, int *out);

/* 0 if `offset_s` seconds east of UTC is an offset a stamp may carry:
 * strictly within a day (|offset_s| < 86400); else MONOSTAMP_ERANGE.
 * Pure; thread-safe. */
MONOSTAMP_API int monostamp_offset_check(int64_t offset_s);
/* The UTC offset a zone applied to make wall time `local` of the instant
 * whose UTC wall time is `utc`: 0 and *out_offset_s, or MONOSTAMP_EINVAL
 * unless the two share their nanosecond and differ by an offset
 * monostamp_offset_check accepts.  Pure; thread-safe. */
MONOSTAMP_API int monostamp_wall_offset(const monostamp_wall *local, const monostamp_wall *utc,
                                        int32_t *out_offset_s);
/* The instant of wall time `w` (year .. second and nanosecond) at
 * `offset_s`, as int64 ns since the epoch: monostamp_wall_seconds less the
 * offset, then monostamp_ns_from_seconds (MONOSTAMP_ERANGE outside int64
 * ns, MONOSTAMP_EINVAL for a nanosecond outside 0..999999999 or a NULL
 * `w`).  Pure; thread-safe. */
MONOSTAMP_API int monostamp_wall_instant(const monostamp_wall *w, int32_t offset_s,
                                         int64_t *out_ns);

/* What to add to a message for `code`, from a call given the state file
 * `path`: when the code is ENOENT and the directory part of `path` does
 * not exist, "its directory does not exist -- create the directory first;
 * ..." (static text), since a state file is created if
 * absent but its directory is not; else NULL.  NULL on Windows, whose own
 * sentence for a missing directory says so.  Reads the file system (one
 * stat); thread-safe. */
MONOSTAMP_API const char *monostamp_state_file_hint(int code, const char *path);
/* Writes the sentence for `code`, a failure of a call given the state file
 * `path` as the option or variable `what` ("shared", "MONOSTAMP_SHARED",
 * "path"): "what='path': " and monostamp_state_file_hint's text when it has
 * one, else monostamp_strerror's ("shared='/x/s': Permission denied").
 * Returns the length; MONOSTAMP_ERANGE if cut short (the two strings plus
 * 200 bytes always fit), MONOSTAMP_EINVAL for a NULL argument or a `size`
 * of 0.  Reads the file system as the hint does; thread-safe. */
MONOSTAMP_API int monostamp_state_file_text(int code, const char *what, const char *path,
                                            char *buf, size_t size);

/* A binding's sleep checked and its deadline made: `ns` from `now_ns` when
 * `is_duration` (sleep_ns(ns, tolerance_ns)), else `ns` itself, any
 * deadline (sleep_until_ns).  0 and *out_deadline_ns; MONOSTAMP_EINVAL for
 * a negative duration or tolerance, MONOSTAMP_ERANGE for a deadline past
 * INT64_MAX, with *bad_arg the argument at fault (1: `ns`, 2:
 * `tolerance_ns`) and `why` (if not NULL; cut short to fit `size`) its
 * sentence: "ns must be >= 0, not -1", "tolerance_ns must be >= 0, not -1"
 * or "a sleep of N ns ends past the monotonic clock's range" (96 bytes
 * always fit).  Pure; thread-safe. */
MONOSTAMP_API int monostamp_sleep_deadline(int64_t now_ns, int64_t ns, int is_duration,
                                           int64_t tolerance_ns, int64_t *out_deadline_ns,
                                           int *bad_arg, char *why, size_t size);
/* A binding's sleep begun: monostamp_sleep_deadline's checks and deadline
 * (`now_ns` the binding's first reading), then monostamp_sleep_begin's
 * plan into `plan` (from a fresh reading for a deadline, from `now_ns` for
 * a duration), the deadline in plan->deadline_ns.  The first step, or
 * monostamp_sleep_deadline's code with *bad_arg and `why` as it gives them
 * (MONOSTAMP_EINVAL for a NULL `plan`).  Thread-safe. */
MONOSTAMP_API int monostamp_sleep_start(monostamp_sleep_plan *plan, int64_t now_ns, int64_t ns,
                                        int is_duration, int64_t tolerance_ns, int finish,
                                        int *bad_arg, char *why, size_t size);
/* A binding's isoformat(utc_ns, offset_s, digits, use_z):
 * monostamp_format_iso8601 with `offset_s` and `digits` as the host gave
 * them (`digits` 0..9 only).  The length, or the code with *bad_arg the
 * argument at fault (1: `utc_ns`, 2: `offset_s`, 3: `digits`; 0: none,
 * `buf` too small) and `why` (if not NULL; cut short to fit `why_size`)
 * its sentence: monostamp_rule_text's for MONOSTAMP_RULE_OFFSET (a day or
 * more), MONOSTAMP_RULE_DIGITS and MONOSTAMP_RULE_OFFSET_MINUTES ("offset",
 * "digits"), or "N ns truncated to D digits falls before the int64
 * nanosecond range, which no parse takes back -- give more digits" (the
 * only instants int64 ns and a day's offset cannot write) (160
 * bytes always fit).  Thread-safe. */
/* A binding's uuid7_ns(text): the stamp in the UUIDv7 whose canonical
 * text is the `len` bytes at `text` (monostamp_uuid_parse, then
 * monostamp_uuid7_ns).  0 and *out_ns; else MONOSTAMP_EINVAL or
 * MONOSTAMP_ENOTV7, with `why` (if not NULL; cut short to fit `size`) the
 * sentence, the text quoted (its first 40 bytes and "..." if longer): "'x'
 * is not a UUID in canonical 8-4-4-4-12 form", "'...': " and
 * monostamp_strerror's for ENOTV7 (192 bytes always fit).  Thread-safe. */
MONOSTAMP_API int monostamp_uuid7_text_ns(const char *text, size_t len, int64_t *out_ns,
                                          char *why, size_t size);
MONOSTAMP_API int monostamp_isoformat(char *buf, size_t size, int64_t utc_ns, int64_t offset_s,
                                      int64_t digits, int use_z, int *bad_arg, char *why,
                                      size_t why_size);


/* ------------------------------------------ a runner's private directories */

/*
 * A runner (`monostamp run`) keeps a private state file in a directory of
 * its own, MONOSTAMP_RUN_DIR_PREFIX, the runner's tag, then a random part
 * without "-" (mkdtemp's).  The tag says who made it: the pid and, on
 * Linux, the process's start time (/proc/PID/stat's 22nd field, clock
 * ticks since boot: a pid used again has another) and its pid namespace
 * (/proc/self/ns/pid: another namespace's pids cannot be looked up here).
 * A runner removes its directory when its command ends; one killed
 * (SIGKILL, a power cut) cannot, so the next run sweeps the directories of
 * runners that are surely gone.
 */
#define MONOSTAMP_RUN_DIR_PREFIX "monostamp-run-"
/* Writes the name this process's directory starts with, NUL-terminated:
 * "monostamp-run-PID-START-NAMESPACE-", or "monostamp-run-PID-" where /proc
 * cannot tell (other systems, Windows).  Returns the length;
 * MONOSTAMP_ERANGE if cut short (96 bytes always fit), MONOSTAMP_EINVAL
 * for a NULL `buf` or a `size` of 0.  Reads /proc; thread-safe. */
MONOSTAMP_API int monostamp_run_dir_prefix(char *buf, size_t size);
/* Removes the directories in `parent` that runners of this (real) user
 * made and whose runner is surely gone, with the files in them: named on
 * Linux, no process of that pid started at that time in this pid
 * namespace; named by pid alone where there is no /proc, no process of
 * that pid.  A live runner's directory, one of another user or namespace,
 * one named without a start time on a system that has them, and on
 * Windows every one, stay.  Returns how many were removed (0 also when
 * `parent` cannot be read); MONOSTAMP_EINVAL for a NULL or empty
 * `parent`.  Reads and writes the file system; thread-safe. */
MONOSTAMP_API int monostamp_run_dirs_sweep(const char *parent);

#ifdef __cplusplus
}
#endif

#endif /* MONOSTAMP_HOST_H */
