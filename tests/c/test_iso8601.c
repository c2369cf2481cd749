/* test_iso8601.c: RFC 3339 formatting and parsing: error paths first, then
 * known texts, round trips, and the shared vectors in tests/vectors/
 * (found through MONOSTAMP_VECTORS, else ./tests/vectors). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pinned_zones.h"
#include "vectors.h"
#include "monostamp_host.h"

#define NS INT64_C(1000000000)

static int parse(const char *s, int64_t *ns, int32_t *off, monostamp_parse_error *e)
{
    return monostamp_parse_iso8601(s, strlen(s), ns, off, e);
}

/* ------------------------------------------------------------ formatting */

static void test_format_errors(void)
{
    char buf[64];
    memset(buf, '#', sizeof buf);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, 0, 0, -3, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, 0, 0, 10, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, 0, 30, 9, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, 0, -2670, 9, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, 0, 86400, 9, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, 0, -86400, 9, 0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_format_iso8601(NULL, 10, 0, 0, 9, 0), MONOSTAMP_EINVAL);
    /* Too small: ERANGE and the buffer untouched. */
    CHECK_RC(monostamp_format_iso8601(buf, 34, 0, 3600, 9, 0), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_format_iso8601(buf, 0, 0, 3600, 9, 0), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_format_iso8601(NULL, 0, 0, 3600, 9, 0), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_format_iso8601(buf, 19, 0, 0, 0, 1), MONOSTAMP_ERANGE);
    for (size_t i = 0; i < sizeof buf; i++) CHECK_EQ(buf[i], '#');
}

static void test_format(void)
{
    char buf[MONOSTAMP_ISO8601_MAX + 1];
    int64_t t = INT64_C(1796220680123456789); /* 2026-12-02T14:11:20.123456789Z */
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, 3600, 9, 0), 35);
    CHECK_STR_EQ(buf, "2026-12-02T15:11:20.123456789+01:00");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, 0, 9, 1), 30);
    CHECK_STR_EQ(buf, "2026-12-02T14:11:20.123456789Z");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, 0, 0, 0), 25);
    CHECK_STR_EQ(buf, "2026-12-02T14:11:20+00:00");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, -16200, 3, 0), 29);
    CHECK_STR_EQ(buf, "2026-12-02T09:41:20.123-04:30");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, 20700, 1, 1), 27);
    CHECK_STR_EQ(buf, "2026-12-02T19:56:20.1+05:45");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, 86340, 0, 0), 25);
    CHECK_STR_EQ(buf, "2026-12-03T14:10:20+23:59");
    /* Truncation, not rounding; negative instants floor. */
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, -1, 0, 9, 1), 30);
    CHECK_STR_EQ(buf, "1969-12-31T23:59:59.999999999Z");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, -1, 0, 0, 1), 20);
    CHECK_STR_EQ(buf, "1969-12-31T23:59:59Z");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, INT64_MIN, 0, 9, 1), 30);
    CHECK_STR_EQ(buf, "1677-09-21T00:12:43.145224192Z");
    /* Format and parse agree on the whole range: INT64_MIN cut to whole
     * seconds (or µs) is before INT64_MIN, so neither prints it. */
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, INT64_MIN, 0, 0, 1), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, INT64_MIN, 0, 6, 1), MONOSTAMP_ERANGE);
    CHECK_RC(monostamp_parse_iso8601("1677-09-21T00:12:43Z", 20, NULL, NULL, NULL),
             MONOSTAMP_ERANGE);
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, INT64_MIN + 854775808, 0, 0, 1), 20);
    CHECK_STR_EQ(buf, "1677-09-21T00:12:44Z");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, INT64_MAX, 0, 9, 1), 30);
    CHECK_STR_EQ(buf, "2262-04-11T23:47:16.854775807Z");
    /* Exactly the length: written without the NUL. */
    memset(buf, '#', sizeof buf);
    CHECK_EQ(monostamp_format_iso8601(buf, 20, 0, 0, 0, 1), 20);
    CHECK(memcmp(buf, "1970-01-01T00:00:00Z#", 21) == 0);
}

/* Hours and minutes alone, and the timespec names that choose them. */
static void test_format_timespec(void)
{
    char buf[MONOSTAMP_ISO8601_MAX + 1];
    int64_t t = INT64_C(1796220680123456789); /* 2026-12-02T14:11:20.123456789Z */
    int d = 99;
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, 3600, MONOSTAMP_ISO8601_MINUTES, 0),
             22);
    CHECK_STR_EQ(buf, "2026-12-02T15:11+01:00");
    CHECK_EQ(monostamp_format_iso8601(buf, sizeof buf, t, 0, MONOSTAMP_ISO8601_HOURS, 1), 14);
    CHECK_STR_EQ(buf, "2026-12-02T14Z");
    /* The length is the cut text's: it fits exactly, the rest untouched. */
    memset(buf, '#', sizeof buf);
    CHECK_RC(monostamp_format_iso8601(buf, 13, t, 0, MONOSTAMP_ISO8601_HOURS, 1),
             MONOSTAMP_ERANGE);
    CHECK_EQ(buf[0], '#');
    CHECK_EQ(monostamp_format_iso8601(buf, 14, t, 0, MONOSTAMP_ISO8601_HOURS, 1), 14);
    CHECK(memcmp(buf, "2026-12-02T14Z#", 15) == 0);
    CHECK_RC(monostamp_format_iso8601(buf, sizeof buf, t, 30, MONOSTAMP_ISO8601_HOURS, 0),
             MONOSTAMP_EINVAL);

    CHECK_RC(monostamp_iso8601_timespec("second", t, &d), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_iso8601_timespec(NULL, t, &d), MONOSTAMP_EINVAL);
    CHECK_EQ(d, 99);
    CHECK_OK(monostamp_iso8601_timespec("hours", t, &d));
    CHECK_EQ(d, MONOSTAMP_ISO8601_HOURS);
    CHECK_OK(monostamp_iso8601_timespec("minutes", t, &d));
    CHECK_EQ(d, MONOSTAMP_ISO8601_MINUTES);
    CHECK_OK(monostamp_iso8601_timespec("milliseconds", t, &d));
    CHECK_EQ(d, 3);
    CHECK_OK(monostamp_iso8601_timespec("auto", t, &d));
    CHECK_EQ(d, 9);
    CHECK_OK(monostamp_iso8601_timespec("auto", t - 123456789, &d));
    CHECK_EQ(d, 0);
    CHECK_OK(monostamp_iso8601_timespec("auto", -1, &d));
    CHECK_EQ(d, 9);
}

/* --------------------------------------------------------------- parsing */

static void test_parse_errors(void)
{
    monostamp_parse_error e = {99, NULL};
    int64_t ns = 7;
    int32_t off = 7;
    CHECK_RC(monostamp_parse_iso8601(NULL, 5, &ns, &off, &e), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_parse_iso8601(NULL, 0, &ns, &off, &e), MONOSTAMP_ESYNTAX);
    CHECK_EQ(e.position, 0);
    CHECK_RC(monostamp_parse_iso8601("", 0, &ns, &off, &e), MONOSTAMP_ESYNTAX);
    CHECK(strstr(e.reason, "year") != NULL);
    /* The length rules, not the NUL: an embedded NUL is just a bad byte. */
    CHECK_RC(monostamp_parse_iso8601("2026-12-02T15:11:20Z\0", 21, &ns, &off, &e),
             MONOSTAMP_ESYNTAX);
    CHECK_EQ(e.position, 20);
    CHECK_RC(monostamp_parse_iso8601("2026-12-02T15:11:20\0Z", 21, &ns, &off, &e),
             MONOSTAMP_ESYNTAX);
    CHECK_EQ(e.position, 19);
    CHECK_RC(monostamp_parse_iso8601("2026-12-02T15:11:20Zjunk", 20, &ns, &off, &e), 0);
    /* The error struct is optional; outputs are untouched on failure. */
    ns = 7;
    off = 7;
    CHECK_RC(parse("2026-12-02T15:11:20", &ns, &off, NULL), MONOSTAMP_ESYNTAX);
    CHECK_EQ(ns, 7);
    CHECK_EQ(off, 7);
    CHECK_RC(parse("2026-12-02T15:11:20+01:00", NULL, NULL, NULL), 0);
    /* The header's own example. */
    CHECK_RC(parse("2026-12-02T15.11:20Z", &ns, &off, &e), MONOSTAMP_ESYNTAX);
    CHECK_EQ(e.position, 13);
    CHECK_STR_EQ(e.reason, "expected ':' between hour and minute");
}

static void test_parse(void)
{
    int64_t ns = 0;
    int32_t off = 0;
    CHECK_OK(parse("2026-12-02T15:11:20.123456789+01:00", &ns, &off, NULL));
    CHECK_EQ(ns, INT64_C(1796220680123456789));
    CHECK_EQ(off, 3600);
    CHECK_OK(parse("2026-12-02 14:11:20.5z", &ns, &off, NULL));
    CHECK_EQ(ns, INT64_C(1796220680500000000));
    CHECK_EQ(off, 0);
    CHECK_OK(parse("1985-12-31T23:59:59-0545", &ns, &off, NULL));
    CHECK_EQ(off, -20700);
    CHECK_EQ(ns, (INT64_C(504921599) + 20700) * NS);
}

/* Every instant formatted at any digits parses back to itself, truncated. */
static void test_round_trip(void)
{
    char buf[MONOSTAMP_ISO8601_MAX + 1];
    uint64_t x = 88172645463325252ULL;
    static const int32_t offs[] = {0, 3600, -18000, 20700, 37800, -12600, 86340, -86340, 45900};
    for (int i = 0; i < 20000; i++) {
        int64_t t, back = 0, want;
        int32_t off = offs[i % 9], got = 1;
        int digits = i % 10, len;
        int64_t unit = 1;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t = (int64_t)x; /* any int64 */
        len = monostamp_format_iso8601(buf, sizeof buf, t, off, digits, i & 1);
        for (int k = digits; k < 9; k++) unit *= 10;
        int64_t rem = (t % unit + unit) % unit;
        if (t < INT64_MIN + rem) {
            /* The truncated text would leave int64: refused, not printed. */
            CHECK_RC(len, MONOSTAMP_ERANGE);
            continue;
        }
        CHECK_GT(len, 0);
        want = t - rem;
        {
            monostamp_parse_error e;
            int rc = monostamp_parse_iso8601(buf, (size_t)len, &back, &got, &e);
            if (rc != 0) fprintf(stderr, "  %s: %s at %zu\n", buf, e.reason, e.position);
            CHECK_OK(rc);
        }
        CHECK_EQ(back, want);
        CHECK_EQ(got, off);
    }
}

/* Every prefix of a good text, and every one-byte change, is refused or
 * parsed without crashing, and refusals point inside the text. */
static void test_mangled(void)
{
    const char *good = "2026-12-02T15:11:20.123456789+01:00";
    char buf[64];
    size_t n = strlen(good);
    for (size_t cut = 0; cut < n; cut++) {
        monostamp_parse_error e = {999, NULL};
        int rc = monostamp_parse_iso8601(good, cut, NULL, NULL, &e);
        CHECK_NE(rc, 0);
        CHECK_LE(e.position, cut);
        CHECK(e.reason != NULL);
    }
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < 256; c += 7) {
            monostamp_parse_error e = {999, NULL};
            int rc;
            memcpy(buf, good, n);
            buf[i] = (char)c;
            rc = monostamp_parse_iso8601(buf, n, NULL, NULL, &e);
            if (rc != 0) {
                CHECK_LE(e.position, n);
                CHECK(e.reason != NULL);
            }
        }
    }
}

/* ------------------------------------------------------------- vectors */

static void test_vectors_format(void)
{
    FILE *f = open_vectors("iso8601.tsv");
    char line[512], buf[MONOSTAMP_ISO8601_MAX + 1];
    int cases = 0;
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        char *fl[8];
        int64_t t, back = 0, unit = 1, want;
        int32_t off, zoff = 0, got = 0;
        int digits, use_z, len;
        monostamp_zone *z = NULL;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (split(line, fl, 8) != 6) {
            fprintf(stderr, "  bad vector line: %s\n", line);
            CHECK(0);
        }
        t = strtoll(fl[0], NULL, 10);
        off = (int32_t)strtol(fl[2], NULL, 10);
        digits = atoi(fl[3]);
        use_z = atoi(fl[4]);
        if (monostamp_zone_open(fl[1], &z) != 0) fprintf(stderr, "  zone %s missing\n", fl[1]);
        CHECK(z != NULL); /* every zone the vectors name is pinned */
        CHECK_OK(monostamp_zone_offset(z, t, &zoff));
        monostamp_zone_close(z);
        if (zoff != off) fprintf(stderr, "  %s at %s\n", fl[1], fl[0]);
        CHECK_EQ(zoff, off);
        len = monostamp_format_iso8601(buf, sizeof buf, t, off, digits, use_z);
        CHECK_EQ(len, (int)strlen(fl[5]));
        CHECK_STR_EQ(buf, fl[5]);
        for (int k = digits; k < 9; k++) unit *= 10;
        want = t - (int64_t)((t % unit + unit) % unit);
        CHECK_OK(parse(fl[5], &back, &got, NULL));
        CHECK_EQ(back, want);
        CHECK_EQ(got, off);
        cases++;
    }
    fclose(f);
    CHECK_GT(cases, 50);
}

static void test_vectors_parse(void)
{
    FILE *f = open_vectors("iso8601_parse.tsv");
    char line[512];
    int cases = 0;
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        char *fl[4];
        int64_t ns = 0;
        int32_t off = 0;
        monostamp_parse_error e = {0, ""};
        int rc;
        if (line[0] == '#' || line[0] == '\n') continue;
        CHECK_EQ(split(line, fl, 4), 3);
        rc = parse(fl[0], &ns, &off, &e);
        if (rc != 0) fprintf(stderr, "  %s: %s at %zu\n", fl[0], e.reason, e.position);
        CHECK_OK(rc);
        CHECK_EQ(ns, strtoll(fl[1], NULL, 10));
        CHECK_EQ(off, strtol(fl[2], NULL, 10));
        cases++;
    }
    fclose(f);
    CHECK_GT(cases, 10);
}

static void test_vectors_bad(void)
{
    FILE *f = open_vectors("iso8601_bad.tsv");
    char line[512];
    int cases = 0;
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        char *fl[5];
        monostamp_parse_error e = {999, NULL};
        int rc, want;
        if (line[0] == '#' || line[0] == '\n') continue;
        CHECK_EQ(split(line, fl, 5), 4);
        want = strcmp(fl[2], "ERANGE") == 0 ? MONOSTAMP_ERANGE : MONOSTAMP_ESYNTAX;
        rc = parse(fl[0], NULL, NULL, &e);
        if (rc != want || e.position != (size_t)atoi(fl[1]) || e.reason == NULL ||
            strstr(e.reason, fl[3]) == NULL)
            fprintf(stderr, "  \"%s\": rc %d at %zu: %s\n", fl[0], rc, e.position,
                    e.reason ? e.reason : "(null)");
        CHECK_RC(rc, want);
        CHECK_EQ(e.position, atoi(fl[1]));
        CHECK(strstr(e.reason, fl[3]) != NULL);
        cases++;
    }
    fclose(f);
    CHECK_GT(cases, 40);
}

int main(void)
{
    if (pin_zones() != 0) return 1;
    RUN(test_format_errors);
    RUN(test_parse_errors);
    RUN(test_format);
    RUN(test_format_timespec);
    RUN(test_parse);
    RUN(test_round_trip);
    RUN(test_mangled);
    RUN(test_vectors_format);
    RUN(test_vectors_parse);
    RUN(test_vectors_bad);
    return check_summary();
}
