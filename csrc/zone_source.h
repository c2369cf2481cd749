/* zone_source.h: where a zone's data comes from (a TZif file under TZDIR,
 * an absolute path, a POSIX TZ string) and how the local zone's source is
 * identified, so a change can be noticed cheaply. */
#ifndef MONOSTAMP_ZONE_SOURCE_H
#define MONOSTAMP_ZONE_SOURCE_H

#include "config.h"

#include <limits.h>

#include "os.h"
#include "tzif.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Refuse zone files above this size: real ones are under 10 KiB. */
#define MONOSTAMP__TZIF_MAX_BYTES (1024 * 1024)

MONOSTAMP__HIDDEN_BEGIN

/* What the local zone was read from: the TZ value and the resolved file's
 * identity.  Equal keys mean nothing changed (docs/offset-engine.md, trap
 * 6: dev, inode, size and mtime with nanoseconds, since glibc's
 * whole-second mtime check misses an in-place rewrite within one second). */
typedef struct monostamp__zone_key {
    int tz_set;               /* TZ is in the environment */
    int tz_too_long;          /* ... but longer than tz[] holds */
    char tz[PATH_MAX + 1];
    char path[PATH_MAX];      /* the file the source names, "" if none */
    int has_file;             /* path exists; `file` is its identity */
    monostamp__os_file_id file;
} monostamp__zone_key;

/* 1 if `name` is "UTC" in any case. */
int monostamp__zone_is_utc(const char *name);

/* Joins TZDIR (else /usr/share/zoneinfo) and a relative `name`, or copies
 * an absolute one.  0, or -1 if the result does not fit `size`. */
int monostamp__zone_resolve_path(const char *name, char *buf, size_t size);

/* Reads and parses the TZif file at `path`; on success, fills the key's
 * file identity from the opened file (if `key` is not NULL).  0,
 * MONOSTAMP_ENOZONE (missing, unreadable, not a regular file, too big,
 * malformed) or MONOSTAMP_ENOMEM. */
int monostamp__zone_load_file(const char *path, monostamp__tzdata **out,
                              monostamp__zone_key *key);

/* A zone by name as monostamp_zone_open takes it: a leading ':' is
 * dropped, "" and "UTC" are UTC, then a file under the zone database is
 * tried (never an absolute name or one with a ".." component), then a
 * POSIX TZ string (glibc's order).  0, MONOSTAMP_ENOZONE or
 * MONOSTAMP_ENOMEM. */
int monostamp__zone_load_name(const char *name, monostamp__tzdata **out,
                              monostamp__zone_key *key);

/* Reads TZ (one getenv) and stats the file it names, or /etc/localtime. */
void monostamp__zone_local_key(monostamp__zone_key *key);
/* 1 if two keys name the same, unchanged source. */
int monostamp__zone_key_equal(const monostamp__zone_key *a,
                              const monostamp__zone_key *b);

/* Loads the local zone for `key` (updating its file identity).  0 with
 * *out, or MONOSTAMP_ENOZONE when the caller must fall back to probing
 * localtime_r, or MONOSTAMP_ENOMEM. */
int monostamp__zone_load_local(monostamp__zone_key *key,
                               monostamp__tzdata **out);

MONOSTAMP__HIDDEN_END

#endif
