/* host_text.c: text the bindings show, written once here so that the C
 * module and the FFI module (and any host) say the same: the names of the
 * core's codes, a clock's summary, the list of an option's names, the
 * sentences for an unknown zone and a refused take or manual move, and the
 * context of a default clock's failure. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* snprintf's result as the core's: the length, or MONOSTAMP_ERANGE when it
 * was cut short (or could not be written). */
static int written(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= size ? MONOSTAMP_ERANGE : n;
}

const char *monostamp_error_name(int code)
{
    static const char *const names[] = {
        NULL, "EINVAL", "ERANGE", "ENOTSUP", "ELEAD", NULL /* -5 retired */, "EFOREIGN",
        "EVERSION", "ENOZONE", "ESYNTAX", "ENOMEM", "EUNSAFE", "EINTR", "EPOLICY",
        "ENOTV7", "EEXIST",
    };
    return code < 0 && code > -(int)(sizeof names / sizeof names[0]) ? names[-code] : NULL;
}

int monostamp_clock_describe(const monostamp_clock *clock, char *buf, size_t size)
{
    const char *zone = monostamp_zone_name(monostamp_clock_zone(clock));
    int64_t lead = monostamp_clock_max_lead_ns(clock);
    char bound[64] = "";
    if (lead > 0)  /* the bound only when there is one */
        snprintf(bound, sizeof bound, ", max_lead_ns %lld %s", (long long)lead,
                 monostamp_on_lead_name(monostamp_clock_on_lead(clock)));
    return written(buf, size, "%s, %s, zone '%s'%s%s",
                   monostamp_source_name(monostamp_clock_source(clock)),
                   monostamp_policy_name(monostamp_clock_policy(clock)),
                   zone[0] != '\0' ? zone : "local", bound,
                   monostamp_clock_is_shared(clock) ? ", shared" : "");
}

int monostamp_clock_fault(const monostamp_clock *clock, const char *call, int code,
                          int64_t value, char *buf, size_t size)
{
    int take = call != NULL && strcmp(call, "take") == 0, blamed = 0;
    if (clock == NULL || call == NULL || buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    buf[0] = '\0';
    if (take && code == MONOSTAMP_EINVAL)
        blamed = 2, written(buf, size, "n=%lld must be >= 1", (long long)value);
    else if (take && code == MONOSTAMP_ERANGE)
        blamed = 2, written(buf, size, "n=%lld stamps would pass the int64 range", (long long)value);
    else if (take && code == MONOSTAMP_EPOLICY)
        written(buf, size, "the clock's policy %s allows equal stamps, so it has no blocks",
                monostamp_policy_name(monostamp_clock_policy(clock)));
    else if (!take && code == MONOSTAMP_ENOTSUP)
        blamed = 1, written(buf, size, "%s needs a clock with source 'manual', this one's is '%s'",
                            call, monostamp_source_name(monostamp_clock_source(clock)));
    else if (!take && code == MONOSTAMP_ERANGE)
        blamed = 2, written(buf, size, "%s by %lld ns would overflow the manual reading", call,
                            (long long)value);
    return blamed;
}

int monostamp_option_names(const char *field, char *buf, size_t size)
{
    int used = written(buf, size, "%s", "");
    if (used < 0 || monostamp_option_name(field, 0) == NULL)
        return used < 0 ? used : MONOSTAMP_EINVAL;
    for (int v = 0; monostamp_option_name(field, v) != NULL; v++) {
        int n = written(buf + used, size - (size_t)used, "%s'%s'", v > 0 ? ", " : "",
                        monostamp_option_name(field, v));
        if (n < 0)
            return n;
        used += n;
    }
    return used;
}

int monostamp_zone_unknown(const char *name, char *buf, size_t size)
{
    char near[MONOSTAMP_ZONE_NAME_MAX + 1];
    if (name == NULL)
        return MONOSTAMP_EINVAL;
    if (monostamp_zone_suggest(name, near, sizeof near) == MONOSTAMP_OK)
        return written(buf, size, "zone '%s' is not a zone this machine knows "
                       "\xe2\x80\x94 did you mean '%s'?", name, near);
    return written(buf, size, "zone '%s' is not a zone this machine knows \xe2\x80\x94 give "
                   "'UTC', an IANA name such as 'Europe/Berlin' or a POSIX TZ string", name);
}

int monostamp_default_context(int code, char *buf, size_t size)
{
    /* The variable as the environment holds it now: what the core read at
     * load, unless the host has changed its environment since. */
    const char *path = getenv("MONOSTAMP_SHARED");
    if (buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    buf[0] = '\0';
    if (path == NULL || path[0] == '\0' || !monostamp_state_file_fault(code))
        return 0;
    return written(buf, size, "MONOSTAMP_SHARED=%s", path);
}
