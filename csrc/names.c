/* names.c: error messages (from MONOSTAMP_ERRNO_MAP) and the names of
 * policies, sources and lead actions: every table of names the bindings
 * show lives here or in that map, once. */
#include "config.h"

#include <string.h>

#include "os.h"

int monostamp_os_errno(int code)
{
    /* Written so that no code, INT_MIN included, overflows. */
    return code <= -MONOSTAMP_EOS_BASE ? -(code + MONOSTAMP_EOS_BASE) : 0;
}

int monostamp_errno_of(int code)
{
    int err = monostamp_os_errno(code);
    return err != 0 ? monostamp__os_posix_errno(err) : 0;
}

int monostamp_state_file_fault(int code)
{
    return monostamp_os_errno(code) != 0 || code == MONOSTAMP_EFOREIGN ||
           code == MONOSTAMP_EVERSION || code == MONOSTAMP_EUNSAFE || code == MONOSTAMP_EEXIST;
}

const char *monostamp_strerror(int code)
{
    int err = monostamp_os_errno(code);
    if (err != 0) {
        /* Per thread, so that two threads' messages never mix. */
        static MONOSTAMP__THREAD_LOCAL char buf[160];
        monostamp__os_strerror(err, buf, sizeof buf);
        return buf;
    }
    switch (code) {
    case MONOSTAMP_OK: return "success";
#define MESSAGE(name, value, message) case MONOSTAMP_##name: return message;
    MONOSTAMP_ERRNO_MAP(MESSAGE)
#undef MESSAGE
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

/* Indexed by monostamp_policy: the constants' names. */
static const char *const policy_constants[] = {
    "ACCEPT_PLATFORM_TIME",
    "MONOTONIC_ALLOW_DUPLICATES",
    "MONOTONIC_FORCE_MICROSECOND_INCREMENT",
    "MONOTONIC_FORCE_NANOSECOND_INCREMENT",
};

/* Indexed by monostamp_source. */
static const char *const source_names[] = {
    "realtime",
    "realtime_coarse",
    "manual",
};

/* Indexed by monostamp_on_lead. */
static const char *const on_lead_names[] = {
    "wait",
    "error",
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

const char *monostamp_policy_constant(int policy)
{
    return policy >= 0 && policy < COUNT(policy_constants) ? policy_constants[policy] : NULL;
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

const char *monostamp_on_lead_name(int on_lead)
{
    return on_lead >= 0 && on_lead < COUNT(on_lead_names) ? on_lead_names[on_lead] : NULL;
}

int monostamp_on_lead_from_name(const char *name, monostamp_on_lead *out)
{
    int i = lookup(on_lead_names, COUNT(on_lead_names), name);
    if (i < 0)
        return MONOSTAMP_EINVAL;
    *out = (monostamp_on_lead)i;
    return MONOSTAMP_OK;
}
