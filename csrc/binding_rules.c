/* binding_rules.c: rules every binding applies at its edge, written once:
 * the names an option field takes, a UTC offset's range, the instant of a
 * wall time, the arguments of a sleep, of isoformat and of uuid7_ns, and
 * the hint for a state file whose directory is missing. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <sys/stat.h>
#endif

#include "calendar.h"

const char *monostamp_option_name(const char *field, int value)
{
    if (field == NULL)
        return NULL;
    if (strcmp(field, "policy") == 0)
        return monostamp_policy_name(value);
    if (strcmp(field, "source") == 0)
        return monostamp_source_name(value);
    if (strcmp(field, "on_lead") == 0)
        return monostamp_on_lead_name(value);
    return NULL;
}

int monostamp_option_from_name(const char *field, const char *name, int *out)
{
    if (name == NULL || out == NULL)
        return MONOSTAMP_EINVAL;
    int policy = field != NULL && strcmp(field, "policy") == 0;
    for (int v = 0; monostamp_option_name(field, v) != NULL; v++) {
        if (strcmp(monostamp_option_name(field, v), name) == 0 ||
            (policy && strcmp(monostamp_policy_constant(v), name) == 0)) {
            *out = v;
            return MONOSTAMP_OK;
        }
    }
    return MONOSTAMP_EINVAL;
}

int monostamp_offset_check(int64_t offset_s)
{
    return offset_s > -MONOSTAMP__S_PER_DAY && offset_s < MONOSTAMP__S_PER_DAY ? MONOSTAMP_OK
                                                                             : MONOSTAMP_ERANGE;
}

int monostamp_wall_offset(const monostamp_wall *local, const monostamp_wall *utc,
                          int32_t *out_offset_s)
{
    if (local == NULL || utc == NULL || out_offset_s == NULL)
        return MONOSTAMP_EINVAL;
    int64_t offset = monostamp_wall_seconds(local) - monostamp_wall_seconds(utc);
    if (local->nanosecond != utc->nanosecond || monostamp_offset_check(offset) != MONOSTAMP_OK)
        return MONOSTAMP_EINVAL;
    *out_offset_s = (int32_t)offset;
    return MONOSTAMP_OK;
}

int monostamp_wall_instant(const monostamp_wall *w, int32_t offset_s, int64_t *out_ns)
{
    if (w == NULL)
        return MONOSTAMP_EINVAL;
    return monostamp_ns_from_seconds(monostamp_wall_seconds(w) - offset_s, w->nanosecond, out_ns);
}

int monostamp_sleep_deadline(int64_t now_ns, int64_t ns, int is_duration, int64_t tolerance_ns,
                             int64_t *out_deadline_ns, int *bad_arg, char *why, size_t size)
{
    int rc = MONOSTAMP_EINVAL, arg = 1;
    const char *fmt;
    if (is_duration && ns < 0)
        fmt = "ns must be >= 0, not %lld";
    else if (tolerance_ns < 0)
        arg = 2, ns = tolerance_ns, fmt = "tolerance_ns must be >= 0, not %lld";
    else if (is_duration && now_ns > 0 && ns > INT64_MAX - now_ns)
        rc = MONOSTAMP_ERANGE, fmt = "a sleep of %lld ns ends past the monotonic clock's range";
    else {  /* any deadline is valid */
        if (out_deadline_ns != NULL)
            *out_deadline_ns = is_duration ? now_ns + ns : ns;
        return MONOSTAMP_OK;
    }
    if (bad_arg != NULL)
        *bad_arg = arg;
    if (why != NULL && size > 0)
        snprintf(why, size, fmt, (long long)ns);
    return rc;
}

int monostamp_isoformat(char *buf, size_t size, int64_t utc_ns, int64_t offset_s, int64_t digits,
                        int use_z, int *bad_arg, char *why, size_t why_size)
{
    long long offset = offset_s;
    int n, arg = 2;
    if (why == NULL)
        why_size = 0;  /* snprintf then writes nothing */
    if (offset_s < INT32_MIN || offset_s > INT32_MAX) {  /* no offset at all */
        n = MONOSTAMP_ERANGE;
        snprintf(why, why_size, "offset %lld s out of range", offset);
    } else if (digits < 0 || digits > 9) {
        n = MONOSTAMP_EINVAL, arg = 3;
        snprintf(why, why_size, "digits must be 0..9, not %lld", (long long)digits);
    } else {
        n = monostamp_format_iso8601(buf, size, utc_ns, (int32_t)offset_s, (int)digits, use_z);
        if (n == MONOSTAMP_EINVAL)
            snprintf(why, why_size, "offset %lld s cannot be written as +hh:mm", offset);
        else if (n == MONOSTAMP_ERANGE && size > MONOSTAMP_ISO8601_MAX)
            arg = 1, snprintf(why, why_size, "%lld ns at offset %lld s is outside the years "
                              "1..9999", (long long)utc_ns, offset);
        else
            arg = 0;  /* done, or no room in `buf`: the code says it */
    }
    if (bad_arg != NULL)
        *bad_arg = arg;
    return n;
}

int monostamp_uuid7_text_ns(const char *text, size_t len, int64_t *out_ns, char *why,
                             size_t size)
{
    enum { SHOWN = 40 };  /* long junk is shown cut short */
    uint8_t id[16];
    int rc = text != NULL ? monostamp_uuid_parse(text, len, id) : MONOSTAMP_EINVAL;
    if (rc == MONOSTAMP_OK && (rc = monostamp_uuid7_ns(id, out_ns)) == MONOSTAMP_OK)
        return rc;
    int unparsed = rc == MONOSTAMP_EINVAL;
    if (why != NULL && size > 0 && text != NULL)
        snprintf(why, size, "'%.*s%s'%s%s", (int)(len > SHOWN ? SHOWN : len), text,
                 len > SHOWN ? "..." : "", unparsed ? " " : ": ",
                 unparsed ? "is not a UUID in canonical 8-4-4-4-12 form" : monostamp_strerror(rc));
    return rc;
}

const char *monostamp_state_file_hint(int code, const char *path)
{
#if defined(_WIN32)
    /* Windows' own sentence for ERROR_PATH_NOT_FOUND already says it. */
    (void)code;
    (void)path;
    return NULL;
#else
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    if (monostamp_os_errno(code) != ENOENT || slash == NULL || slash == path)
        return NULL;
    size_t len = (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (dir == NULL)
        return NULL;
    memcpy(dir, path, len);
    dir[len] = '\0';
    struct stat st;
    int missing = stat(dir, &st) != 0 ? errno == ENOENT || errno == ENOTDIR : !S_ISDIR(st.st_mode);
    free(dir);
    /* The state file is created if absent; its directory is not. */
    return missing ? "its directory does not exist -- create the directory first; the state "
                     "file itself is created if absent"
                   : NULL;
#endif
}
