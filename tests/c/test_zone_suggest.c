/* test_zone_suggest.c: monostamp_zone_suggest, the "did you mean ...?" the
 * bindings add to a refused zone name, over the pinned zone database
 * (pinned_zones.h): slips of a letter, swapped letters, a city alone, a
 * case slip, names too far from any zone, 'utc' (which now opens), and bad
 * arguments.  The same suggestion from every binding is checked there. */
#include <string.h>

#include "check.h"
#include "monostamp.h"
#include "pinned_zones.h"

static void expect(const char *name, const char *want)
{
    char buf[MONOSTAMP_ZONE_NAME_MAX + 1];
    int rc = monostamp_zone_suggest(name, buf, sizeof buf);
    if (want == NULL) {
        CHECK_RC(rc, MONOSTAMP_ENOZONE);
        CHECK(buf[0] == '\0');
    } else {
        CHECK_OK(rc);
        if (strcmp(buf, want) != 0)
            fprintf(stderr, "  suggest(%s): got '%s', want '%s'\n", name, buf, want);
        CHECK(strcmp(buf, want) == 0);
    }
}

static void test_slips(void)
{
#ifdef _WIN32
    SKIP("the zone database is not walked for suggestions on Windows (docs/windows.md)");
#endif
    expect("Europe/Berln", "Europe/Berlin");      /* a letter missing */
    expect("America/New_Yrok", "America/New_York"); /* two swapped */
    expect("Eurpoe/London", "Europe/London");
    expect("europe/berlin", "Europe/Berlin");     /* case: the files are case-sensitive */
    expect("berlin", "Europe/Berlin");            /* the city alone */
    expect("UTX", "UTC");
}

static void test_nothing_near(void)
{
    expect("Mars/Olympus_Mons", NULL);
    expect("Europe/Bxxxxx", NULL);                /* more than a slip */
    expect("", NULL);
}

static void test_utc_in_any_case_opens_as_utc(void)
{
    monostamp_zone *z = NULL;
    int32_t off = -1;
    CHECK_OK(monostamp_zone_open("utc", &z));
    CHECK(strcmp(monostamp_zone_name(z), "UTC") == 0);
    CHECK_OK(monostamp_zone_offset(z, 0, &off));
    CHECK_EQ(off, 0);
    monostamp_zone_close(z);
    CHECK_RC(monostamp_zone_open("utcx", &z), MONOSTAMP_ENOZONE);
}

static void test_bad_arguments(void)
{
    char buf[4];
    char longname[MONOSTAMP_ZONE_NAME_MAX + 2];
    CHECK_RC(monostamp_zone_suggest(NULL, buf, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_zone_suggest("x", NULL, sizeof buf), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_zone_suggest("x", buf, 0), MONOSTAMP_EINVAL);
#ifndef _WIN32
    /* 'Europe/Berlin' does not fit 4 bytes. */
    CHECK_RC(monostamp_zone_suggest("Europe/Berln", buf, sizeof buf), MONOSTAMP_ERANGE);
#endif
    memset(longname, 'A', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_RC(monostamp_zone_suggest(longname, buf, sizeof buf), MONOSTAMP_ENOZONE);
}

int main(void)
{
    if (pin_zones() != 0) return 1;
    RUN(test_slips);
    RUN(test_nothing_near);
    RUN(test_utc_in_any_case_opens_as_utc);
    RUN(test_bad_arguments);
    return check_summary();
}
