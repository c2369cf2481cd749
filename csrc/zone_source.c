/* zone_source.c: find, read and identify zone sources (see zone_source.h).
 * The only file in the engine that touches the file system or TZ. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "zone_source.h"

#define DEFAULT_TZDIR "/usr/share/zoneinfo"
#define LOCALTIME_PATH "/etc/localtime"

static int utc_data(monostamp__tzdata **out)
{
    monostamp__tzrule utc = {0};
    return monostamp__tzdata_from_rule(&utc, out);
}

int monostamp__zone_resolve_path(const char *name, char *buf, size_t size)
{
    size_t n = strlen(name), d;
    const char *dir;
    if (name[0] == '/') {
        if (n >= size) return -1;
        memcpy(buf, name, n + 1);
        return 0;
    }
    dir = getenv("TZDIR");
    if (dir == NULL || dir[0] == '\0') dir = DEFAULT_TZDIR;
    d = strlen(dir);
    if (d >= size || n >= size - d - 1) return -1; /* dir + '/' + name + NUL */
    memcpy(buf, dir, d);
    buf[d] = '/';
    memcpy(buf + d + 1, name, n + 1);
    return 0;
}

int monostamp__zone_load_file(const char *path, monostamp__tzdata **out,
                              monostamp__zone_key *key)
{
    monostamp__os_file_id id;
    unsigned char *buf;
    size_t len;
    int rc = monostamp__os_read_file(path, MONOSTAMP__TZIF_MAX_BYTES, &buf, &len, &id);

    if (rc == MONOSTAMP_ENOMEM)
        return rc;
    if (rc != MONOSTAMP_OK) /* missing, unreadable, not a regular file, too big */
        return MONOSTAMP_ENOZONE;
    rc = monostamp__tzif_parse(buf, len, out);
    free(buf);
    if (rc == 0 && key != NULL) {
        key->has_file = 1;
        key->file = id;
    }
    return rc;
}

/* 1 if `name` stays inside the zone database: not absolute, no ".."
 * component (Python's zoneinfo draws the same line).  A zone name comes
 * from callers who may pass on untrusted text; only TZ, which the process
 * owner sets, may name a file anywhere. */
static int stays_in_database(const char *name)
{
    if (name[0] == '/' || name[0] == '\\')
        return 0;
    for (const char *p = name; *p != '\0';) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += n;
        if (*p != '\0')
            p++;
    }
    return 1;
}

int monostamp__zone_is_utc(const char *name)
{
    /* 'utc' and 'Utc' as 'UTC': no zone file or TZ string is spelled so. */
    return (name[0] == 'U' || name[0] == 'u') && (name[1] == 'T' || name[1] == 't') &&
           (name[2] == 'C' || name[2] == 'c') && name[3] == '\0';
}

int monostamp__zone_load_name(const char *name, monostamp__tzdata **out,
                              monostamp__zone_key *key)
{
    char path[PATH_MAX];
    monostamp__tzrule rule;
    int rc;
    if (name[0] == ':') name++;
    if (name[0] == '\0' || monostamp__zone_is_utc(name)) return utc_data(out);
    if (stays_in_database(name) && monostamp__zone_resolve_path(name, path, sizeof path) == 0) {
        rc = monostamp__zone_load_file(path, out, key);
        if (rc != MONOSTAMP_ENOZONE) return rc;
    }
    if (monostamp__tzrule_parse(name, strlen(name), &rule) == 0)
        return monostamp__tzdata_from_rule(&rule, out);
    return MONOSTAMP_ENOZONE;
}

void monostamp__zone_local_key(monostamp__zone_key *key)
{
    const char *tz = getenv("TZ");
    memset(key, 0, sizeof *key);
    if (tz == NULL) {
        memcpy(key->path, LOCALTIME_PATH, sizeof LOCALTIME_PATH);
    } else {
        /* Copy at once: the environment may change under us
         * (docs/offset-engine.md, trap 7). */
        size_t n = strnlen(tz, sizeof key->tz);
        key->tz_set = 1;
        if (n == sizeof key->tz) {
            key->tz_too_long = 1;
            return;
        }
        memcpy(key->tz, tz, n);
        key->tz[n] = '\0';
        tz = key->tz[0] == ':' ? key->tz + 1 : key->tz;
        if (tz[0] == '\0' || monostamp__zone_resolve_path(tz, key->path, sizeof key->path) != 0)
            key->path[0] = '\0';
    }
    if (key->path[0] != '\0' && monostamp__os_file_id_get(key->path, &key->file) == MONOSTAMP_OK)
        key->has_file = 1;
}

int monostamp__zone_key_equal(const monostamp__zone_key *a,
                              const monostamp__zone_key *b)
{
    return a->tz_set == b->tz_set && a->tz_too_long == b->tz_too_long &&
           strcmp(a->tz, b->tz) == 0 && strcmp(a->path, b->path) == 0 &&
           a->has_file == b->has_file &&
           (!a->has_file || (a->file.dev == b->file.dev && a->file.ino == b->file.ino &&
                             a->file.size == b->file.size &&
                             a->file.mtime_s == b->file.mtime_s &&
                             a->file.mtime_ns == b->file.mtime_ns));
}

/* The local source is refused (ENOZONE): the engine would hand it to the
 * C library (tzset, localtime_r).  Not a file that is there but is no
 * regular file: glibc opens it blocking, and a FIFO would hang the caller
 * for good.  Such a source is UTC, what glibc makes of a zone it cannot
 * read, without asking it. */
static int not_for_libc(const monostamp__zone_key *key, monostamp__tzdata **out)
{
    if (key->has_file && !key->file.regular)
        return utc_data(out);
    return MONOSTAMP_ENOZONE;
}

int monostamp__zone_load_local(monostamp__zone_key *key, monostamp__tzdata **out)
{
    const char *tz;
    monostamp__tzrule rule;
    int rc;
    if (!key->tz_set) {
        /* No /etc/localtime at all means UTC, as in glibc. */
        if (!key->has_file) return utc_data(out);
        rc = monostamp__zone_load_file(key->path, out, key);
        return rc == MONOSTAMP_ENOZONE ? not_for_libc(key, out) : rc;
    }
    if (key->tz_too_long) return MONOSTAMP_ENOZONE;
    tz = key->tz[0] == ':' ? key->tz + 1 : key->tz;
    if (tz[0] == '\0') return utc_data(out); /* glibc: TZ="" is UTC */
    if (key->has_file) {
        rc = monostamp__zone_load_file(key->path, out, key);
        if (rc != MONOSTAMP_ENOZONE) return rc;
    }
    if (monostamp__tzrule_parse(tz, strlen(tz), &rule) == 0)
        return monostamp__tzdata_from_rule(&rule, out);
    return not_for_libc(key, out);
}
