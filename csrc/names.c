/* names.c: error messages and the names of policies and sources. */
#include <string.h>

#include "monostamp.h"

const char *monostamp_strerror(int code)
{
    switch (code) {
    case MONOSTAMP_OK: return "success";
    case MONOSTAMP_EINVAL: return "invalid argument";
    case MONOSTAMP_ERANGE: return "value out of range";
    case MONOSTAMP_ENOTSUP: return "operation not supported by this clock's source";
    case MONOSTAMP_ELEAD: return "stamp would lead its source by more than max_lead_ns";
    case MONOSTAMP_ESYSTEM: return "system call failed";
    case MONOSTAMP_EFOREIGN: return "not a monostamp state file, or truncated";
    case MONOSTAMP_EVERSION: return "monostamp state file of another version";
    case MONOSTAMP_ENOZONE: return "unknown or malformed time zone";
    case MONOSTAMP_ESYNTAX: return "malformed ISO 8601 text";
    case MONOSTAMP_ENOMEM: return "out of memory";
    default: return "unknown error";
    }
}

/* Indexed by monostamp_policy. */
static const char *const policy_names[] = {
    "acceptPlatformTime",
    "monotonicAllowDuplicates",
    "monotonicForceMicrosecondIncrement",
    "monotonicForceNanosecondIncrement",
};

/* Indexed by monostamp_source. */
static const char *const source_names[] = {
    "realtime",
    "realtime_coarse",
    "manual",
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int lookup(const char *const *names, int count, const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *monostamp_policy_name(int policy)
{
    return policy >= 0 && policy < COUNT(policy_names) ? policy_names[policy] : NULL;
}

int monostamp_policy_from_name(const char *name, monostamp_policy *out)
{
    int i = lookup(policy_names, COUNT(policy_names), name);
    if (i < 0)
        return MONOSTAMP_EINVAL;
    *out = (monostamp_policy)i;
    return MONOSTAMP_OK;
}

const char *monostamp_source_name(int source)
{
    return source >= 0 && source < COUNT(source_names) ? source_names[source] : NULL;
}

int monostamp_source_from_name(const char *name, monostamp_source *out)
{
    int i = lookup(source_names, COUNT(source_names), name);
    if (i < 0)
        return MONOSTAMP_EINVAL;
    *out = (monostamp_source)i;
    return MONOSTAMP_OK;
}
