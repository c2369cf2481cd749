/* test_options.c: the one options check and the field it names, clocks
 * the library allocates, the getters, and error codes that carry errno. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "check.h"
#include "monostamp_host.h"

/* Checks `o` and returns the field named ("" when none). */
static const char *bad_field_of(const monostamp_options *o)
{
    const char *field = "unset";
    int rc = monostamp_options_check(o, &field);
    if (rc == MONOSTAMP_OK)
        return field == NULL ? "" : "named a field yet passed";
    return field == NULL ? "failed without a field" : field;
}

static void test_each_bad_field_is_named(void)
{
    monostamp_options o;
    char long_zone[MONOSTAMP_ZONE_NAME_MAX + 2];
    memset(long_zone, 'A', sizeof long_zone - 1);
    long_zone[sizeof long_zone - 1] = '\0';

    monostamp_options_init(&o);
    CHECK_STR_EQ(bad_field_of(&o), "");
    o.policy = 4;
    CHECK_STR_EQ(bad_field_of(&o), "policy");
    monostamp_options_init(&o);
    o.source = 3;
    CHECK_STR_EQ(bad_field_of(&o), "source");
    monostamp_options_init(&o);
    o.on_lead = -1;
    CHECK_STR_EQ(bad_field_of(&o), "on_lead");
    monostamp_options_init(&o);
    o.max_lead_ns = INT64_MIN;
    CHECK_STR_EQ(bad_field_of(&o), "max_lead_ns");
    monostamp_options_init(&o);
    o.has_start_ns = 1;
    CHECK_STR_EQ(bad_field_of(&o), "start_ns");
    o.source = MONOSTAMP_SOURCE_MANUAL;
    CHECK_STR_EQ(bad_field_of(&o), "");
    monostamp_options_init(&o);
    o.zone = long_zone;
    CHECK_STR_EQ(bad_field_of(&o), "zone");
    monostamp_options_init(&o);
    o.shared_path = "";
    CHECK_STR_EQ(bad_field_of(&o), "shared_path");
    /* Several wrong: the first in the struct's order, every time. */
    monostamp_options_init(&o);
    o.on_lead = 7;
    o.policy = -3;
    CHECK_STR_EQ(bad_field_of(&o), "policy");
    CHECK_RC(monostamp_options_check(NULL, NULL), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_options_check(&o, NULL), MONOSTAMP_EINVAL);
}

static void test_every_field_has_a_rule(void)
{
    const char *fields[] = {"policy", "source", "zone", "max_lead_ns", "on_lead",
                            "shared_path", "start_ns", "options"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *rule = monostamp_options_rule(fields[i]);
        CHECK(rule != NULL);
        CHECK_GT(strlen(rule), 5);
    }
    CHECK_STR_EQ(monostamp_options_rule("max_lead_ns"), "must be >= 0");
    /* The rule names what the core accepts: every policy's name is in it. */
    for (int p = 0; monostamp_policy_name(p) != NULL; p++)
        CHECK(strstr(monostamp_options_rule("policy"), monostamp_policy_name(p)) != NULL);
    for (int p = 0; monostamp_source_name(p) != NULL; p++)
        CHECK(strstr(monostamp_options_rule("source"), monostamp_source_name(p)) != NULL);
    for (int p = 0; monostamp_on_lead_name(p) != NULL; p++)
        CHECK(strstr(monostamp_options_rule("on_lead"), monostamp_on_lead_name(p)) != NULL);
    CHECK(monostamp_options_rule("nonsense") == NULL);
    CHECK(monostamp_options_rule(NULL) == NULL);
}

static void test_init_refuses_what_check_refuses(void)
{
    monostamp_clock c;
    monostamp_options o;
    monostamp_options_init(&o);
    o.shared_path = "";
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_EINVAL);
    monostamp_options_init(&o);
    o.on_lead = 2;
    CHECK_RC(monostamp_clock_init(&c, &o), MONOSTAMP_EINVAL);
}

static void test_new_and_free(void)
{
    monostamp_options o;
    monostamp_clock *c = NULL;
    monostamp_stamp a, b;

    monostamp_options_init(&o);
    o.source = MONOSTAMP_SOURCE_MANUAL;
    o.has_start_ns = 1;
    o.start_ns = 1000;
    o.max_lead_ns = 5;
    o.on_lead = MONOSTAMP_ON_LEAD_ERROR;
    o.zone = "UTC";
    CHECK_OK(monostamp_clock_new(&o, &c));
    CHECK(c != NULL);
    CHECK_EQ(monostamp_clock_source(c), MONOSTAMP_SOURCE_MANUAL);
    CHECK_EQ(monostamp_clock_max_lead_ns(c), 5);
    CHECK_EQ(monostamp_clock_on_lead(c), MONOSTAMP_ON_LEAD_ERROR);
    CHECK_EQ(monostamp_clock_policy(c), MONOSTAMP_DEFAULT_POLICY);
    CHECK_EQ(monostamp_clock_is_shared(c), 0);
    CHECK_STR_EQ(monostamp_zone_name(monostamp_clock_zone(c)), "UTC");
    CHECK_OK(monostamp_now(c, &a));
    CHECK_OK(monostamp_now(c, &b));
    CHECK_EQ(a.utc_ns, 1000);
    CHECK_EQ(b.utc_ns, 1001);
    monostamp_clock_free(c);
    monostamp_clock_free(NULL);

    c = (monostamp_clock *)&a; /* must be reset to NULL on failure */
    o.zone = "No/Such_Zone";
    CHECK_RC(monostamp_clock_new(&o, &c), MONOSTAMP_ENOZONE);
    CHECK(c == NULL);
    CHECK_RC(monostamp_clock_new(&o, NULL), MONOSTAMP_EINVAL);
}

static void test_storage_is_as_documented(void)
{
    CHECK_EQ(sizeof(monostamp_clock), MONOSTAMP_CLOCK_SIZE);
    CHECK_GE(_Alignof(monostamp_clock), _Alignof(int64_t));
    CHECK_GE(_Alignof(monostamp_clock), _Alignof(void *));
    /* A clock destroyed twice, or zeroed and destroyed, is fine. */
    monostamp_clock c;
    memset(&c, 0, sizeof c);
    monostamp_clock_destroy(&c);
    CHECK_OK(monostamp_clock_init(&c, NULL));
    monostamp_clock_destroy(&c);
    monostamp_clock_destroy(&c);
}

static void test_os_codes_carry_errno(void)
{
    CHECK_EQ(MONOSTAMP_EOS(ENOENT), -(MONOSTAMP_EOS_BASE + ENOENT));
    CHECK_EQ(monostamp_os_errno(MONOSTAMP_EOS(ENOENT)), ENOENT);
    CHECK_EQ(monostamp_os_errno(MONOSTAMP_EOS(EACCES)), EACCES);
    CHECK_EQ(monostamp_os_errno(MONOSTAMP_ENOMEM), 0);
    CHECK_EQ(monostamp_os_errno(0), 0);
    CHECK_EQ(monostamp_os_errno(-999), 0);
    CHECK_EQ(monostamp_os_errno(INT_MIN), INT_MAX - MONOSTAMP_EOS_BASE + 1);
#if defined(_WIN32)
    /* There an EOS code carries a Windows error (GetLastError), so its
     * message is the system's, as FormatMessage gives it (without the
     * trailing ".\r\n"), not the C library's strerror. */
    static const DWORD errors[] = {ERROR_FILE_NOT_FOUND, ERROR_ACCESS_DENIED};
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        char want[256];
        DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                                 NULL, errors[i], 0, want, sizeof want, NULL);
        CHECK_GT(n, 0);
        while (n > 0 && (want[n - 1] == '.' || want[n - 1] == '\r' || want[n - 1] == '\n'))
            want[--n] = '\0';
        CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EOS((int)errors[i])), want);
    }
#else
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EOS(ENOENT)), strerror(ENOENT));
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EOS(EACCES)), strerror(EACCES));
#endif
    /* The errno of an OS failure, on every system: the Windows codes
     * mapped as the C runtime maps them, 0 where none fits. */
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_ENOMEM), 0);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EEXIST), 0);
    CHECK_EQ(monostamp_errno_of(0), 0);
#if defined(_WIN32)
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ERROR_FILE_NOT_FOUND)), ENOENT);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ERROR_PATH_NOT_FOUND)), ENOENT);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ERROR_ACCESS_DENIED)), EACCES);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ERROR_SHARING_VIOLATION)), EACCES);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ERROR_ALREADY_EXISTS)), EEXIST);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ERROR_DIRECTORY)), ENOTDIR);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ERROR_INVALID_FUNCTION)), 0);
#else
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ENOENT)), ENOENT);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(ESRCH)), ESRCH);
    CHECK_EQ(monostamp_errno_of(MONOSTAMP_EOS(EACCES)), EACCES);
#endif
    /* Whose doing a failure of a call given a state file is. */
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_EOS(ENOENT)), 1);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_EFOREIGN), 1);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_EVERSION), 1);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_EUNSAFE), 1);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_EEXIST), 1);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_OK), 0);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_EINVAL), 0);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_ENOZONE), 0);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_ENOMEM), 0);
    CHECK_EQ(monostamp_state_file_fault(MONOSTAMP_ELEAD), 0);
    /* The named codes keep their static sentences; -5 is retired. */
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EFOREIGN), "not a monostamp state file, or truncated");
    CHECK_STR_EQ(monostamp_strerror(-5), "unknown error");
    CHECK(strlen(monostamp_strerror(MONOSTAMP_EOS(99999))) > 0);
}

static void test_on_lead_names(void)
{
    monostamp_on_lead a;
    CHECK_STR_EQ(monostamp_on_lead_name(MONOSTAMP_ON_LEAD_WAIT), "wait");
    CHECK_STR_EQ(monostamp_on_lead_name(MONOSTAMP_ON_LEAD_ERROR), "error");
    CHECK(monostamp_on_lead_name(2) == NULL);
    CHECK(monostamp_on_lead_name(-1) == NULL);
    CHECK_OK(monostamp_on_lead_from_name("error", &a));
    CHECK_EQ(a, MONOSTAMP_ON_LEAD_ERROR);
    CHECK_RC(monostamp_on_lead_from_name("Wait", &a), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_on_lead_from_name(NULL, &a), MONOSTAMP_EINVAL);
}

int main(void)
{
    RUN(test_each_bad_field_is_named);
    RUN(test_every_field_has_a_rule);
    RUN(test_init_refuses_what_check_refuses);
    RUN(test_new_and_free);
    RUN(test_storage_is_as_documented);
    RUN(test_os_codes_carry_errno);
    RUN(test_on_lead_names);
    return check_summary();
}
