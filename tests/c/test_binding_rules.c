/* test_binding_rules.c: the rules a binding applies at its edge
 * (csrc/binding_rules.c): option names, offsets, wall instants, the
 * arguments of a sleep, isoformat and uuid7_ns, and the state file's
 * missing-directory hint. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "monostamp_host.h"

#if !defined(_WIN32)
#include <sys/stat.h>
#include <unistd.h>
#endif

static void test_option_names_round_trip(void)
{
    static const char *const fields[] = {"policy", "source", "on_lead"};
    static const int counts[] = {4, 3, 2};
    for (int f = 0; f < 3; f++) {
        int v = 0, got = -1;
        for (; monostamp_option_name(fields[f], v) != NULL; v++) {
            CHECK_RC(monostamp_option_from_name(fields[f], monostamp_option_name(fields[f], v),
                                                &got), MONOSTAMP_OK);
            CHECK_EQ(got, v);
        }
        CHECK_EQ(v, counts[f]);
    }
    CHECK_STR_EQ(monostamp_option_name("policy", 3), "monotonicForceNanosecondIncrement");
    CHECK_STR_EQ(monostamp_option_name("source", 2), "manual");
    CHECK_STR_EQ(monostamp_option_name("on_lead", 1), "error");
    CHECK(monostamp_option_name("policy", -1) == NULL);
    CHECK(monostamp_option_name("zone", 0) == NULL);
    CHECK(monostamp_option_name(NULL, 0) == NULL);
}

static void test_a_policy_goes_by_its_constant_too(void)
{
    int got = -1;
    CHECK_RC(monostamp_option_from_name("policy", "MONOTONIC_FORCE_MICROSECOND_INCREMENT", &got),
             MONOSTAMP_OK);
    CHECK_EQ(got, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT);
    /* Only a policy has constants' names; case counts. */
    CHECK_RC(monostamp_option_from_name("source", "REALTIME", &got), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_from_name("policy", "acceptplatformtime", &got), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_from_name("on_lead", "panic", &got), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_from_name("zone", "UTC", &got), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_from_name("policy", NULL, &got), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_option_from_name("policy", "acceptPlatformTime", NULL), MONOSTAMP_EINVAL);
    CHECK_EQ(got, MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT); /* untouched on failure */
}

static void test_an_offset_is_strictly_within_a_day(void)
{
    CHECK_RC(monostamp_offset_check(0), MONOSTAMP_OK);
    CHECK_RC(monostamp_offset_check(86399), MONOSTAMP_OK);
    CHECK_RC(monostamp_offset_check(-86399), MONOSTAMP_OK);
    CHECK_RC(monostamp_offset_check(86400), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_offset_check(-86400), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_offset_check(INT64_MIN), MONOSTAMP_ERANGE);
}

static void test_wall_offset_and_instant(void)
{
    monostamp_wall utc, local;
    int32_t offset = 7;
    int64_t ns = 0;
    /* 2026-03-29T00:30:00.5Z, in Berlin 01:30:00.5 (+01:00). */
    monostamp_wall_fields(INT64_C(1774744200500000000), 0, &utc);
    monostamp_wall_fields(INT64_C(1774744200500000000), 3600, &local);
    CHECK_RC(monostamp_wall_offset(&local, &utc, &offset), MONOSTAMP_OK);
    CHECK_EQ(offset, 3600);
    CHECK_RC(monostamp_wall_instant(&local, 3600, &ns), MONOSTAMP_OK);
    CHECK_EQ(ns, INT64_C(1774744200500000000));
    CHECK_RC(monostamp_wall_instant(&utc, 0, &ns), MONOSTAMP_OK);
    CHECK_EQ(ns, INT64_C(1774744200500000000));
    /* Not the same fraction, or a day apart: no offset. */
    local.nanosecond += 1000;
    CHECK_RC(monostamp_wall_offset(&local, &utc, &offset), MONOSTAMP_EINVAL);
    monostamp_wall_fields(INT64_C(1774744200500000000), 86400, &local);
    CHECK_RC(monostamp_wall_offset(&local, &utc, &offset), MONOSTAMP_EINVAL);
    CHECK_EQ(offset, 3600);
    /* The ends of int64 ns, and past them. */
    monostamp_wall_fields(INT64_MIN, -3600, &local);
    CHECK_RC(monostamp_wall_instant(&local, -3600, &ns), MONOSTAMP_OK);
    CHECK_EQ(ns, INT64_MIN);
    CHECK_RC(monostamp_wall_instant(&local, 0, &ns), MONOSTAMP_ERANGE);
    local.nanosecond = 1000000000;
    CHECK_RC(monostamp_wall_instant(&local, -3600, &ns), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_wall_instant(NULL, 0, &ns), MONOSTAMP_EINVAL);
}

static void test_a_missing_directory_is_said(void)
{
#if defined(_WIN32)
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(2), "C:\\no\\such\\state") == NULL);
    SKIP("Windows' own message says a directory is missing");
#else
    char dir[] = "/tmp/monostamp-hint-XXXXXX", path[64], file[64];
    const char *hint;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/nope/state", dir);
    snprintf(file, sizeof file, "%s/file", dir);
    hint = monostamp_state_file_hint(MONOSTAMP_EOS(ENOENT), path);
    CHECK(hint != NULL && strstr(hint, "its directory does not exist") != NULL);
    /* A directory that exists: the OS's reason is the whole story. */
    snprintf(path, sizeof path, "%s/state", dir);
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(ENOENT), path) == NULL);
    /* A file where the directory should be is no directory either. */
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    fclose(f);
    snprintf(path, sizeof path, "%s/file/state", dir);
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(ENOENT), path) != NULL);
    /* Other codes, a bare name, the root: nothing. */
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(EACCES), "/no/such/dir/state") == NULL);
    CHECK(monostamp_state_file_hint(MONOSTAMP_EUNSAFE, "/no/such/dir/state") == NULL);
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(ENOENT), "state") == NULL);
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(ENOENT), "/state") == NULL);
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(ENOENT), NULL) == NULL);
    CHECK(monostamp_state_file_hint(MONOSTAMP_EOS(ENOENT), "/no/such/dir/state") != NULL);
    remove(file);
    rmdir(dir);
#endif
}

static void test_a_sleep_deadline(void)
{
    int64_t deadline = 0;
    int bad = 0;
    char why[96], small[8];
    CHECK_OK(monostamp_sleep_deadline(100, 5, 1, 0, &deadline, &bad, why, sizeof why));
    CHECK_EQ(deadline, 105);
    /* Any deadline, even a negative one, for sleep_until_ns. */
    CHECK_OK(monostamp_sleep_deadline(100, -5, 0, 7, &deadline, NULL, NULL, 0));
    CHECK_EQ(deadline, -5);
    CHECK_OK(monostamp_sleep_deadline(1, INT64_MAX - 1, 1, 0, &deadline, NULL, NULL, 0));
    CHECK_EQ(deadline, INT64_MAX);
    /* The duration's fault first, then the tolerance's, then the range. */
    CHECK_RC(monostamp_sleep_deadline(100, -1, 1, -2, &deadline, &bad, why, sizeof why),
             MONOSTAMP_EINVAL);
    CHECK_EQ(bad, 1);
    CHECK_STR_EQ(why, "ns must be >= 0, not -1");
    CHECK_RC(monostamp_sleep_deadline(100, -1, 0, -7, &deadline, &bad, why, sizeof why),
             MONOSTAMP_EINVAL);
    CHECK_EQ(bad, 2);
    CHECK_STR_EQ(why, "tolerance_ns must be >= 0, not -7");
    CHECK_RC(monostamp_sleep_deadline(2, INT64_MAX - 1, 1, 0, &deadline, &bad, why, sizeof why),
             MONOSTAMP_ERANGE);
    CHECK_EQ(bad, 1);
    CHECK_STR_EQ(why, "a sleep of 9223372036854775806 ns ends past the monotonic clock's range");
    CHECK_EQ(deadline, INT64_MAX);  /* untouched on failure */
    /* A clock read as negative cannot overflow a non-negative duration. */
    CHECK_OK(monostamp_sleep_deadline(-10, INT64_MAX, 1, 0, &deadline, NULL, NULL, 0));
    CHECK_EQ(deadline, INT64_MAX - 10);
    CHECK_RC(monostamp_sleep_deadline(0, -3, 1, 0, NULL, NULL, small, sizeof small),
             MONOSTAMP_EINVAL);
    CHECK_STR_EQ(small, "ns must");
}

static void test_isoformat(void)
{
    char buf[MONOSTAMP_ISO8601_MAX + 1], why[160], small[8];
    int bad = -1;
    CHECK_EQ(monostamp_isoformat(buf, sizeof buf, 0, 3600, 3, 0, &bad, why, sizeof why), 29);
    CHECK_STR_EQ(buf, "1970-01-01T01:00:00.000+01:00");
    CHECK_EQ(bad, 0);
    CHECK_EQ(monostamp_isoformat(buf, sizeof buf, 0, 0, 0, 1, &bad, NULL, 0), 20);
    CHECK_STR_EQ(buf, "1970-01-01T00:00:00Z");
    /* Each argument's fault, the offset's first. */
    CHECK_RC(monostamp_isoformat(buf, sizeof buf, 0, INT64_C(4294967296), 10, 0, &bad, why,
                                 sizeof why), MONOSTAMP_ERANGE);
    CHECK_EQ(bad, 2);
    CHECK_STR_EQ(why, "offset=4294967296 is out of range -- give seconds east of UTC within "
                      "+-86399");
    CHECK_RC(monostamp_isoformat(buf, sizeof buf, 0, -86400, 3, 0, &bad, why, sizeof why),
             MONOSTAMP_ERANGE);
    CHECK_EQ(bad, 2);
    CHECK_STR_EQ(why, "offset=-86400 is out of range -- give seconds east of UTC within +-86399");
    CHECK_RC(monostamp_isoformat(buf, sizeof buf, 0, 0, 10, 0, &bad, why, sizeof why),
             MONOSTAMP_EINVAL);
    CHECK_EQ(bad, 3);
    CHECK_STR_EQ(why, "digits=10 is out of range -- give 0..9, the digits of the fraction of "
                      "a second");
    CHECK_RC(monostamp_isoformat(buf, sizeof buf, 0, 30, 9, 0, &bad, why, sizeof why),
             MONOSTAMP_EINVAL);
    CHECK_EQ(bad, 2);
    CHECK_STR_EQ(why, "offset=30 s is not whole minutes, which RFC 3339 needs");
    CHECK_RC(monostamp_isoformat(buf, sizeof buf, INT64_MIN, 0, 0, 0, &bad, why, sizeof why),
             MONOSTAMP_ERANGE);
    CHECK_EQ(bad, 1);
    CHECK_STR_EQ(why, "-9223372036854775808 ns truncated to 0 digits falls before the int64 "
                      "nanosecond range, which no parse takes back -- give more digits");
    /* A buffer too small is no argument's fault. */
    CHECK_RC(monostamp_isoformat(small, sizeof small, 0, 0, 9, 0, &bad, why, sizeof why),
             MONOSTAMP_ERANGE);
    CHECK_EQ(bad, 0);
    CHECK_RC(monostamp_isoformat(buf, sizeof buf, 0, 0, -1, 0, NULL, NULL, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_isoformat(buf, sizeof buf, 0, 0, -1, 0, &bad, small, sizeof small),
             MONOSTAMP_EINVAL);
    CHECK_STR_EQ(small, "digits=");
}

static void test_uuid7_text(void)
{
    static const char v4[] = "00000000-0000-4000-8000-000000000000";
    char text[MONOSTAMP_UUID_TEXT_SIZE], why[192], small[6];
    uint8_t id[16];
    int64_t ns = 0;
    CHECK_OK(monostamp_uuid7_pack(INT64_C(1764777600000000002), 0, id));
    monostamp_uuid_format(id, text);
    CHECK_OK(monostamp_uuid7_text_ns(text, strlen(text), &ns, why, sizeof why));
    CHECK_EQ(ns, INT64_C(1764777600000000002));
    CHECK_RC(monostamp_uuid7_text_ns("nope", 4, &ns, why, sizeof why), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(why, "'nope' is not a UUID in canonical 8-4-4-4-12 form");
    CHECK_RC(monostamp_uuid7_text_ns(v4, strlen(v4), &ns, why, sizeof why), MONOSTAMP_ENOTV7);
    CHECK(strncmp(why, "'00000000-0000-4000-8000-000000000000': ", 40) == 0);
    CHECK_STR_EQ(why + 40, monostamp_strerror(MONOSTAMP_ENOTV7));
    /* Only `len` bytes count, and a long text is shown cut short. */
    CHECK_RC(monostamp_uuid7_text_ns(text, 35, &ns, why, sizeof why), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_uuid7_text_ns("0123456789012345678901234567890123456789xyz", 43, &ns,
                                     why, sizeof why), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(why, "'0123456789012345678901234567890123456789...' is not a UUID in "
                      "canonical 8-4-4-4-12 form");
    CHECK_RC(monostamp_uuid7_text_ns("nope", 4, &ns, small, sizeof small), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(small, "'nope");
    CHECK_RC(monostamp_uuid7_text_ns(NULL, 0, &ns, why, sizeof why), MONOSTAMP_EINVAL);
}

/* Each rule's sentence, with the host's own text for the value. */
static void test_rule_text(void)
{
    char buf[192], small[8];
    CHECK_EQ(monostamp_rule_text(MONOSTAMP_RULE_NOT_NEGATIVE, "seconds", "-0.5", buf,
                                 sizeof buf), 30);
    CHECK_STR_EQ(buf, "seconds must be >= 0, not -0.5");
    CHECK_RC(monostamp_rule_text(MONOSTAMP_RULE_INT64, "n", "1", buf, 0), MONOSTAMP_EINVAL);
    CHECK_LT(monostamp_rule_text(MONOSTAMP_RULE_INT64, "n", "18446744073709551616", buf,
                                 sizeof buf), (int)sizeof buf);
    CHECK_STR_EQ(buf, "n=18446744073709551616 is out of range -- give an integer within int64 "
                      "(-9223372036854775808..9223372036854775807)");
    CHECK_LT(monostamp_rule_text(MONOSTAMP_RULE_SECONDS, "seconds", "nan", buf, sizeof buf), 160);
    CHECK_STR_EQ(buf, "seconds=nan is out of range -- give a finite number of seconds within "
                      "int64 nanoseconds (under 292 years)");
    CHECK_RC(monostamp_rule_text(MONOSTAMP_RULE_OFFSET, "offset", "86400", small, sizeof small),
             MONOSTAMP_ERANGE);
    CHECK_STR_EQ(small, "offset=");
    CHECK_RC(monostamp_rule_text(0, "x", "1", buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_LT(monostamp_rule_text(MONOSTAMP_RULE_NUL, "zone", "4", buf, sizeof buf), 160);
    CHECK_STR_EQ(buf, "zone has a NUL character at byte 4 -- give text without NUL characters");
    CHECK_RC(monostamp_rule_text(MONOSTAMP_RULE_NUL + 1, "x", "1", buf, sizeof buf),
             MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_rule_text(MONOSTAMP_RULE_DIGITS, NULL, "1", buf, sizeof buf),
             MONOSTAMP_EINVAL);
}

/* Where text failed to parse, in characters, and why. */
static void test_parse_fault(void)
{
    static const char bad_t[] = "2026-12-02X15:11:20Z", wide[] = "\xc3\xa9-12-02";
    static const char long_text[] = "2026-12-02T15:11:20.123456789+01:00 and then \xc3\xa9";
    char buf[320], small[4];
    monostamp_parse_error e = {0, NULL};
    CHECK_RC(monostamp_parse_iso8601(bad_t, strlen(bad_t), NULL, NULL, &e), MONOSTAMP_ESYNTAX);
    CHECK_LT(monostamp_parse_fault(bad_t, strlen(bad_t), MONOSTAMP_ESYNTAX, &e, buf, sizeof buf),
             (int)sizeof buf);
    CHECK_STR_EQ(buf, "'2026-12-02X15:11:20Z' at character 11: expected 'T', 't' or ' ' between "
                      "date and time -- give RFC 3339 text as isoformat writes it, such as "
                      "'2026-12-02T15:11:20.123456789+01:00'");
    CHECK_RC(monostamp_parse_iso8601(wide, strlen(wide), NULL, NULL, &e), MONOSTAMP_ESYNTAX);
    e.position = 2;  /* past the one character of two bytes */
    CHECK_LT(monostamp_parse_fault(wide, strlen(wide), MONOSTAMP_ESYNTAX, &e, buf, sizeof buf),
             320);
    CHECK(strstr(buf, "' at character 2: ") != NULL);
    CHECK_RC(monostamp_parse_iso8601(long_text, strlen(long_text), NULL, NULL, &e),
             MONOSTAMP_ESYNTAX);
    CHECK_LT(monostamp_parse_fault(long_text, strlen(long_text), MONOSTAMP_ESYNTAX, &e, buf,
                                   sizeof buf), 320);
    CHECK(strncmp(buf, "'2026-12-02T15:11:20.123456789+01:00 and ...' at character 36: ",
                  62) == 0);
    e.reason = "instant outside the int64 nanosecond range (1677..2262)";
    e.position = 0;
    CHECK_LT(monostamp_parse_fault("2263", 4, MONOSTAMP_ERANGE, &e, buf, sizeof buf), 320);
    CHECK_STR_EQ(buf, "'2263' at character 1: instant outside the int64 nanosecond range "
                      "(1677..2262)");
    CHECK_RC(monostamp_parse_fault("x", 1, MONOSTAMP_ESYNTAX, &e, small, sizeof small),
             MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_parse_fault(NULL, 1, MONOSTAMP_ESYNTAX, &e, buf, sizeof buf),
             MONOSTAMP_EINVAL);
}

int main(void)
{
    RUN(test_rule_text);
    RUN(test_parse_fault);
    RUN(test_option_names_round_trip);
    RUN(test_a_policy_goes_by_its_constant_too);
    RUN(test_an_offset_is_strictly_within_a_day);
    RUN(test_wall_offset_and_instant);
    RUN(test_a_sleep_deadline);
    RUN(test_isoformat);
    RUN(test_uuid7_text);
    RUN(test_a_missing_directory_is_said);
    return check_summary();
}
