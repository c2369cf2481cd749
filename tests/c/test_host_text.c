/* test_host_text.c: the text the bindings show, from the core (host.c):
 * every code's name and the list of codes, a clock's summary in each shape (local
 * or named zone, lead bound or none, shared or not), the unknown-zone
 * sentence with and without a suggestion, an unknown option's, a refused
 * take or manual move, a state file's and the default clock's sentence,
 * every one ASCII, and short buffers. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "monostamp_host.h"
#include "pinned_zones.h"

static void test_error_names(void)
{
    int code, named = 0;
    CHECK_STR_EQ(monostamp_error_name(MONOSTAMP_EINVAL), "EINVAL");
    CHECK_STR_EQ(monostamp_error_name(MONOSTAMP_ENOZONE), "ENOZONE");
    CHECK_STR_EQ(monostamp_error_name(MONOSTAMP_EEXIST), "EEXIST");
    CHECK(monostamp_error_name(MONOSTAMP_OK) == NULL);
    CHECK(monostamp_error_name(-5) == NULL);  /* retired */
    CHECK(monostamp_error_name(MONOSTAMP_EEXIST - 1) == NULL);
    CHECK(monostamp_error_name(MONOSTAMP_EOS(2)) == NULL);
    CHECK(monostamp_error_name(1) == NULL);
    for (code = -1; code > -MONOSTAMP_EOS_BASE; code--)
        named += monostamp_error_name(code) != NULL;
    CHECK_EQ(named, 14);
    /* The list a host enumerates is those 14, each with its sentence. */
    for (code = 0; monostamp_error_code(code) != 0; code++) {
        CHECK(monostamp_error_name(monostamp_error_code(code)) != NULL);
        CHECK(strcmp(monostamp_strerror(monostamp_error_code(code)), "unknown error") != 0);
    }
    CHECK_EQ(code, 14);
    CHECK_EQ(monostamp_error_code(0), MONOSTAMP_EINVAL);
    CHECK_EQ(monostamp_error_code(13), MONOSTAMP_EEXIST);
    CHECK_EQ(monostamp_error_code(-1), 0);
}

/* 1 if every byte of `s` is ASCII: Windows' cp1252 consoles take no more. */
static int ascii(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s > 0x7f)
            return 0;
    return 1;
}

static int make(monostamp_clock *c, const char *zone, int64_t lead, int on_lead)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.zone = zone;
    o.max_lead_ns = lead;
    o.on_lead = on_lead;
    return monostamp_clock_init(c, &o);
}

static void test_clock_describe(void)
{
    monostamp_clock c;
    char buf[256], small[8];
    CHECK_OK(make(&c, "UTC", 0, MONOSTAMP_ON_LEAD_WAIT));
    CHECK_EQ(monostamp_clock_describe(&c, buf, sizeof buf),
             strlen("manual, monotonicForceNanosecondIncrement, zone 'UTC'"));
    CHECK_STR_EQ(buf, "manual, monotonicForceNanosecondIncrement, zone 'UTC'");
    CHECK_RC(monostamp_clock_describe(&c, small, sizeof small), MONOSTAMP_ERANGE);
    CHECK_STR_EQ(small, "manual,");
    CHECK_RC(monostamp_clock_describe(&c, buf, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_clock_describe(&c, NULL, 8), MONOSTAMP_EINVAL);
    monostamp_clock_destroy(&c);
    CHECK_OK(make(&c, NULL, 1500, MONOSTAMP_ON_LEAD_ERROR));
    CHECK_OK(monostamp_clock_set_policy(&c, MONOSTAMP_ACCEPT_PLATFORM_TIME));
    CHECK_GT(monostamp_clock_describe(&c, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "manual, acceptPlatformTime, zone 'local', max_lead_ns 1500 error");
    monostamp_clock_destroy(&c);
}

static void test_clock_describe_shared(void)
{
    char dir[256], path[300], buf[256];
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "host-text"), 0);
    snprintf(path, sizeof path, "%s/state", dir);
    o.shared_path = path;
    o.zone = "UTC";
    CHECK_OK(monostamp_clock_init(&c, &o));
    CHECK_GT(monostamp_clock_describe(&c, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "realtime, monotonicForceNanosecondIncrement, zone 'UTC', "
                      "max_lead_ns 1000000000 wait, shared");
    monostamp_clock_destroy(&c);
    check_remove_tree(dir);
}

static void test_zone_unknown(void)
{
    char buf[2 * MONOSTAMP_ZONE_NAME_MAX + 256], small[10], longest[MONOSTAMP_ZONE_NAME_MAX + 1];
#ifndef _WIN32
    CHECK_GT(monostamp_zone_unknown("Europe/Berln", buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "zone='Europe/Berln' is not a zone this machine knows -- "
                      "did you mean 'Europe/Berlin'?");
#endif
    CHECK_GT(monostamp_zone_unknown("Mars/Olympus_Mons", buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "zone='Mars/Olympus_Mons' is not a zone this machine knows -- give "
                      "'UTC', an IANA name such as 'Europe/Berlin' (from TZDIR, else the "
                      "system's database) or a POSIX TZ string such as "
                      "'CET-1CEST,M3.5.0,M10.5.0/3'");
    CHECK(ascii(buf));
    /* The stated size holds the longest name and its suggestion. */
    memset(longest, 'x', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    CHECK_GT(monostamp_zone_unknown(longest, buf, sizeof buf), 0);
    CHECK_RC(monostamp_zone_unknown("Mars/Olympus_Mons", small, sizeof small), MONOSTAMP_ERANGE);
    CHECK_STR_EQ(small, "zone='Mar");
    CHECK_RC(monostamp_zone_unknown(NULL, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_zone_unknown("x", buf, 0), MONOSTAMP_EINVAL);
}

static void test_clock_fault(void)
{
    monostamp_clock c;
    monostamp_options o;
    char buf[256], small[8];
    monostamp_options_init(&o);
    o.policy = MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES;
    CHECK_OK(monostamp_clock_init(&c, &o));
    CHECK_EQ(monostamp_clock_fault(&c, "take", MONOSTAMP_EINVAL, -3, buf, sizeof buf), 2);
    CHECK_STR_EQ(buf, "n=-3 must be >= 1");
    CHECK_EQ(monostamp_clock_fault(&c, "take", MONOSTAMP_ERANGE, INT64_MAX, buf, sizeof buf), 2);
    CHECK_STR_EQ(buf, "n=9223372036854775807 stamps would pass the int64 range");
    CHECK_EQ(monostamp_clock_fault(&c, "take", MONOSTAMP_EPOLICY, 5, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "the clock's policy monotonicAllowDuplicates allows equal stamps, "
                      "so it has no blocks; take needs monotonicForceNanosecondIncrement or "
                      "monotonicForceMicrosecondIncrement");
    CHECK_LT(strlen(buf), 256);
    CHECK_EQ(monostamp_clock_fault(&c, "advance", MONOSTAMP_ENOTSUP, 1, buf, sizeof buf), 1);
    CHECK_STR_EQ(buf, "advance needs a clock with source 'manual', this one's is 'realtime' "
                      "-- make the clock with source='manual'");
    CHECK_EQ(monostamp_clock_fault(&c, "set", MONOSTAMP_ERANGE, -1, buf, sizeof buf), 2);
    CHECK_STR_EQ(buf, "ns=-1 would move the reading past the int64 nanosecond range "
                      "(years 1677..2262) -- give a smaller step");
    CHECK_EQ(monostamp_clock_fault(&c, "step_back", MONOSTAMP_EINVAL, -1, buf, sizeof buf), 2);
    CHECK_STR_EQ(buf, "ns=-1 is negative -- give ns >= 0");
    /* The clock's state, not a value: the lead bound and its fix. */
    CHECK_LT(monostamp_options_fault("max_lead_ns", "-1", 0, buf, sizeof buf), 256);
    CHECK_STR_EQ(buf, "max_lead_ns=-1 must be >= 0");
    CHECK_LT(monostamp_options_fault("shared_path", "", 1, buf, sizeof buf), 256);
    CHECK_STR_EQ(buf, "shared='' must be a non-empty path");
    CHECK_LT(monostamp_options_fault("zone", "0123456789012345678901234567890123456789x", 1, buf,
                                     sizeof buf), 256);
    CHECK_STR_EQ(buf, "zone='0123456789012345678901234567890123456789...' (41 bytes) must be a "
                      "zone name of at most 255 bytes");
    CHECK_LT(monostamp_options_fault("colour", "5", 0, buf, sizeof buf), 256);
    CHECK_STR_EQ(buf, "colour=5 is not accepted");
    CHECK_RC(monostamp_options_fault(NULL, "5", 0, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_EQ(monostamp_clock_fault(&c, "take", MONOSTAMP_ELEAD, 5, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "n=5 stamps would lead the source by more than max_lead_ns=1000000000 -- "
                      "take fewer at once, or make the clock with a larger max_lead_ns");
    CHECK_EQ(monostamp_clock_fault(&c, "now", MONOSTAMP_ELEAD, 0, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "the next stamp would lead the source by more than max_lead_ns=1000000000 "
                      "-- the wait for the source ran past its limit: make the clock with a "
                      "larger max_lead_ns");
    CHECK_EQ(monostamp_clock_fault(&c, "now", MONOSTAMP_ERANGE, 0, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "the next stamp would pass the largest int64 nanosecond "
                      "(2262-04-11T23:47:16.854775807Z)");
    CHECK_EQ(monostamp_clock_fault(&c, "now", MONOSTAMP_EINVAL, 0, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "");
    CHECK_EQ(monostamp_clock_fault(&c, "set", MONOSTAMP_EPOLICY, 5, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "");
    CHECK_EQ(monostamp_clock_fault(&c, "take", MONOSTAMP_EINVAL, 0, small, sizeof small), 2);
    CHECK_STR_EQ(small, "n=0 mus");
    CHECK_RC(monostamp_clock_fault(NULL, "take", MONOSTAMP_EINVAL, 0, buf, sizeof buf),
             MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_clock_fault(&c, NULL, MONOSTAMP_EINVAL, 0, buf, sizeof buf),
             MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_clock_fault(&c, "take", MONOSTAMP_EINVAL, 0, buf, 0), MONOSTAMP_EINVAL);
    monostamp_clock_destroy(&c);
}

static void set_shared(const char *value)
{
#if defined(_WIN32)
    _putenv_s("MONOSTAMP_SHARED", value);
#else
    setenv("MONOSTAMP_SHARED", value, 1);
#endif
}

static void test_default_context(void)
{
    char buf[256], small[12];
    set_shared("/run/app/state");
    CHECK_EQ(monostamp_default_context(MONOSTAMP_EFOREIGN, buf, sizeof buf),
             strlen("MONOSTAMP_SHARED='/run/app/state': not a monostamp state file, or "
                    "truncated"));
    CHECK_STR_EQ(buf, "MONOSTAMP_SHARED='/run/app/state': not a monostamp state file, or "
                      "truncated");
    CHECK_GT(monostamp_default_context(MONOSTAMP_EOS(2), buf, sizeof buf), 0);
    /* Not the file's doing: the binding names its call. */
    CHECK_RC(monostamp_default_context(MONOSTAMP_ENOZONE, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "");
    CHECK_RC(monostamp_default_context(MONOSTAMP_EFOREIGN, small, sizeof small), MONOSTAMP_ERANGE);
    CHECK_STR_EQ(small, "MONOSTAMP_S");
    CHECK_RC(monostamp_default_context(MONOSTAMP_EFOREIGN, NULL, 8), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_default_context(MONOSTAMP_EFOREIGN, buf, 0), MONOSTAMP_EINVAL);
    set_shared("");  /* empty is unset, as the core reads it */
    CHECK_RC(monostamp_default_context(MONOSTAMP_EFOREIGN, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "");
}

static void test_option_unknown(void)
{
    char buf[256], small[10];
    CHECK_GT(monostamp_option_unknown("zones", buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "unknown option 'zones' -- did you mean 'zone'?");
    CHECK_GT(monostamp_option_unknown("plicy", buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "unknown option 'plicy' -- did you mean 'policy'?");
    CHECK_GT(monostamp_option_unknown("colour", buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "unknown option 'colour' -- the options are policy, source, zone, "
                      "max_lead_ns, on_lead, shared, start_ns, trust_group");
    CHECK_RC(monostamp_option_unknown("colour", small, sizeof small), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_option_unknown(NULL, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_unknown("trust_group", buf, sizeof buf), 0);  /* known */
    CHECK_STR_EQ(buf, "");
}

/* The refused field as the bindings name it, its value shown, its rule. */
static void test_options_fault(void)
{
    char buf[256], zone[301];
    monostamp_options o;
    monostamp_options_init(&o);
    CHECK_RC(monostamp_options_text(&o, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "");
    o.max_lead_ns = -1;
    CHECK_RC(monostamp_options_text(&o, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(buf, "max_lead_ns=-1 must be >= 0");
    monostamp_options_init(&o);
    o.has_start_ns = 1, o.start_ns = 5;
    CHECK_RC(monostamp_options_text(&o, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(buf, "start_ns=5 is only for the manual source");
    monostamp_options_init(&o);
    o.shared_path = "";
    CHECK_RC(monostamp_options_text(&o, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(buf, "shared='' must be a non-empty path");
    monostamp_options_init(&o);
    memset(zone, 'x', 300), zone[300] = '\0';
    o.zone = zone;
    CHECK_RC(monostamp_options_text(&o, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(buf, "zone='xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (300 bytes) must be a "
                      "zone name of at most 255 bytes");
    monostamp_options_init(&o);
    o.on_lead = 7;
    CHECK_RC(monostamp_options_text(&o, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(buf, "on_lead=7 must be one of 'wait', 'error'");
    CHECK_RC(monostamp_options_text(NULL, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(buf, "options must not be NULL");
    CHECK_RC(monostamp_options_text(&o, NULL, 0), MONOSTAMP_EINVAL);
}

/* A clock's failure: the zone's or the state file's sentence, else none. */
static void test_clock_init_fault(void)
{
    char buf[1024];
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "Mars/Olympus_Mons";
    CHECK_GT(monostamp_clock_init_fault(MONOSTAMP_ENOZONE, &o, buf, sizeof buf), 0);
    CHECK(strncmp(buf, "zone='Mars/Olympus_Mons' is not a zone this machine knows", 57) == 0);
    o.zone = NULL;
    CHECK_RC(monostamp_clock_init_fault(MONOSTAMP_ENOZONE, &o, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "");
    o.shared_path = "/run/s";
    CHECK_GT(monostamp_clock_init_fault(MONOSTAMP_EFOREIGN, &o, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "shared='/run/s': not a monostamp state file, or truncated");
    CHECK_RC(monostamp_clock_init_fault(MONOSTAMP_ENOMEM, &o, buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "");
    CHECK_RC(monostamp_clock_init_fault(MONOSTAMP_ENOMEM, NULL, buf, sizeof buf), MONOSTAMP_EINVAL);
}

static void test_state_file_text(void)
{
    char buf[256];
    CHECK_GT(monostamp_state_file_text(MONOSTAMP_EFOREIGN, "shared", "/run/s", buf, sizeof buf),
             0);
    CHECK_STR_EQ(buf, "shared='/run/s': not a monostamp state file, or truncated");
#ifndef _WIN32
    CHECK_GT(monostamp_state_file_text(MONOSTAMP_EOS(2), "path", "/no/such/dir/s", buf,
                                       sizeof buf), 0);
    CHECK_STR_EQ(buf, "path='/no/such/dir/s': its directory does not exist -- create the "
                      "directory first; the state file itself is created if absent");
#endif
    CHECK(ascii(buf));
    CHECK_RC(monostamp_state_file_text(MONOSTAMP_EFOREIGN, NULL, "/s", buf, sizeof buf),
             MONOSTAMP_EINVAL);
}

static void test_option_names(void)
{
    char buf[256], small[12];
    CHECK_EQ(monostamp_option_names("on_lead", buf, sizeof buf), strlen("'wait', 'error'"));
    CHECK_STR_EQ(buf, "'wait', 'error'");
    CHECK_GT(monostamp_option_names("source", buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "'realtime', 'realtime_coarse', 'manual'");
    CHECK_GT(monostamp_option_names("policy", buf, sizeof buf), 0);
    CHECK_STR_EQ(buf, "'acceptPlatformTime', 'monotonicAllowDuplicates', "
                      "'monotonicForceMicrosecondIncrement', 'monotonicForceNanosecondIncrement'");
    CHECK_RC(monostamp_option_names("source", small, sizeof small), MONOSTAMP_ERANGE);
    CHECK_STR_EQ(small, "'realtime',");
    CHECK_RC(monostamp_option_names("zone", buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(buf, "");
    CHECK_RC(monostamp_option_names(NULL, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_names("source", NULL, 8), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_names("source", buf, 0), MONOSTAMP_EINVAL);
}

int main(void)
{
    if (pin_zones() != 0) return 1;
    RUN(test_error_names);
    RUN(test_clock_describe);
    RUN(test_clock_describe_shared);
    RUN(test_zone_unknown);
    RUN(test_clock_fault);
    RUN(test_default_context);
    RUN(test_option_names);
    RUN(test_option_unknown);
    RUN(test_options_fault);
    RUN(test_clock_init_fault);
    RUN(test_state_file_text);
    return check_summary();
}
