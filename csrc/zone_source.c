/* zone_source.c: find, read and identify zone sources (see zone_source.h).
 * The only file in the engine that touches the file system or TZ. */
#include "zone_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monostamp.h"

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

static void key_from_stat(monostamp__zone_key *key, const struct stat *st)
{
    key->has_file = 1;
    key->dev = st->st_dev;
    key->ino = st->st_ino;
    key->size = st->st_size;
    key->mtime_s = (int64_t)st->st_mtim.tv_sec;
    key->mtime_ns = st->st_mtim.tv_nsec;
}

int monostamp__zone_load_file(const char *path, monostamp__tzdata **out,
                              monostamp__zone_key *key)
{
    struct stat st;
    unsigned char *buf;
    size_t got = 0;
    int fd, rc;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return MONOSTAMP_ENOZONE;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        st.st_size > MONOSTAMP__TZIF_MAX_BYTES) {
        close(fd);
        return MONOSTAMP_ENOZONE;
    }
    buf = malloc((size_t)st.st_size);
    if (buf == NULL) {
        close(fd);
        return MONOSTAMP_ENOMEM;
    }
    /* The size came from fstat; a file that shrinks meanwhile parses short
     * (and fails), one that grows is noticed at the next re-check. */
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    rc = monostamp__tzif_parse(buf, got, out);
    free(buf);
    if (rc == 0 && key != NULL) key_from_stat(key, &st);
    return rc;
}

int monostamp__zone_load_name(const char *name, monostamp__tzdata **out,
                              monostamp__zone_key *key)
{
    char path[PATH_MAX];
    monostamp__tzrule rule;
    int rc;
    if (name[0] == ':') name++;
    if (name[0] == '\0' || strcmp(name, "UTC") == 0) return utc_data(out);
    if (monostamp__zone_resolve_path(name, path, sizeof path) == 0) {
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
    struct stat st;
    memset(key, 0, sizeof *key);
    if (tz == NULL) {
        memcpy(key->path, LOCALTIME_PATH, sizeof LOCALTIME_PATH);
    } else {
        /* Copy at once: trap 7, the environment may change under us. */
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
    if (key->path[0] != '\0' && stat(key->path, &st) == 0) key_from_stat(key, &st);
}

int monostamp__zone_key_equal(const monostamp__zone_key *a,
                              const monostamp__zone_key *b)
{
    return a->tz_set == b->tz_set && a->tz_too_long == b->tz_too_long &&
           strcmp(a->tz, b->tz) == 0 && strcmp(a->path, b->path) == 0 &&
           a->has_file == b->has_file &&
           (!a->has_file || (a->dev == b->dev && a->ino == b->ino &&
                             a->size == b->size && a->mtime_s == b->mtime_s &&
                             a->mtime_ns == b->mtime_ns));
}

int monostamp__zone_load_local(monostamp__zone_key *key, monostamp__tzdata **out)
{
    const char *tz;
    monostamp__tzrule rule;
    int rc;
    if (!key->tz_set) {
        /* No /etc/localtime at all means UTC, as in glibc. */
        if (!key->has_file) return utc_data(out);
        return monostamp__zone_load_file(key->path, out, key);
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
    return MONOSTAMP_ENOZONE;
}
