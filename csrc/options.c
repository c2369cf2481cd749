/*
 * options.c: a clock's options, checked in one place.  monostamp_clock_init
 * and both bindings call monostamp_options_check(), so a bad value is
 * refused by the same rule everywhere and the message names the one field
 * that is wrong.
 */
#include "config.h"

#include <string.h>

void monostamp_options_init(monostamp_options *options)
{
    memset(options, 0, sizeof *options);
    options->policy = MONOSTAMP_DEFAULT_POLICY;
    options->source = MONOSTAMP_SOURCE_REALTIME;
    options->on_lead = MONOSTAMP_ON_LEAD_WAIT;
    options->max_lead_ns = MONOSTAMP_DEFAULT_MAX_LEAD_NS;
}

#define NUMBER_TEXT_(n) #n
#define NUMBER_TEXT(n) NUMBER_TEXT_(n)

/* Each field's rule, written once: the check below and every binding's
 * message follow it. */
static const struct {
    const char *field;
    const char *rule;
} rules[] = {
    {"policy", "must be one of 'acceptPlatformTime', 'monotonicAllowDuplicates', "
               "'monotonicForceMicrosecondIncrement', 'monotonicForceNanosecondIncrement'"},
    {"source", "must be one of 'realtime', 'realtime_coarse', 'manual'"},
    {"zone", "must be a zone name of at most " NUMBER_TEXT(MONOSTAMP_ZONE_NAME_MAX) " bytes"},
    {"max_lead_ns", "must be >= 0"},
    {"on_lead", "must be one of 'wait', 'error'"},
    {"shared_path", "must be a non-empty path"},
    {"start_ns", "is only for the manual source"},
    {"trust_group", "must be 0 or 1"},
    {"options", "must not be NULL"},
};

const char *monostamp_options_rule(const char *field)
{
    if (field == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].field, field) == 0)
            return rules[i].rule;
    return NULL;
}

/* The first field that is wrong, or NULL.  In the struct's order, so the
 * answer does not depend on which check happens to run first. */
static const char *first_bad_field(const monostamp_options *o)
{
    if (monostamp_policy_name(o->policy) == NULL)
        return "policy";
    if (monostamp_source_name(o->source) == NULL)
        return "source";
    if (o->zone != NULL && strnlen(o->zone, MONOSTAMP_ZONE_NAME_MAX + 1) > MONOSTAMP_ZONE_NAME_MAX)
        return "zone";
    if (o->max_lead_ns < 0)
        return "max_lead_ns";
    if (monostamp_on_lead_name(o->on_lead) == NULL)
        return "on_lead";
    if (o->shared_path != NULL && o->shared_path[0] == '\0')
        return "shared_path";
    if (o->has_start_ns && o->source != MONOSTAMP_SOURCE_MANUAL)
        return "start_ns";
    if (o->trust_group != 0 && o->trust_group != 1)
        return "trust_group";
    return NULL;
}

int monostamp_options_check(const monostamp_options *options, const char **bad_field)
{
    const char *bad = options == NULL ? "options" : first_bad_field(options);
    if (bad_field != NULL)
        *bad_field = bad;
    return bad == NULL ? MONOSTAMP_OK : MONOSTAMP_EINVAL;
}
