/* test_zone_input.c: the offset engine on hostile input: bad arguments,
 * names that are no zone (bad POSIX TZ strings, paths out of the zone
 * database, offsets of a day or more), bad files (empty, garbage, a
 * directory, a FIFO, every truncation, flipped bytes, oversized, an
 * over-long TZDIR), offsets over a day in a TZif file, and the TZif parser
 * called directly.  Files are made from the pinned copy in
 * tests/vectors/zoneinfo (pinned_zones.h); test_zone.c has the good cases. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "monostamp.h"
#include "pinned_zones.h"
#include "tzif.h"
#include "zone_check.h"

/* ------------------------------------------------------------ error paths */

static void test_bad_arguments(void)
{
    monostamp_zone *z = NULL;
    int32_t off;
    char longname[MONOSTAMP_ZONE_NAME_MAX + 2];
    CHECK_RC(monostamp_zone_open("UTC", NULL), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_zone_offset(NULL, 0, &off), MONOSTAMP_EINVAL);
    CHECK_OK(monostamp_zone_open("UTC", &z));
    CHECK_RC(monostamp_zone_offset(z, 0, NULL), MONOSTAMP_EINVAL);
    monostamp_zone_close(z);
    monostamp_zone_close(NULL);
    CHECK_RC(monostamp_zone_set_recheck_ns(0), MONOSTAMP_EINVAL);
    CHECK_RC(monostamp_zone_set_recheck_ns(-5), MONOSTAMP_EINVAL);
    /* Over-long names are EINVAL; at the limit they are looked up. */
    memset(longname, 'A', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_RC(monostamp_zone_open(longname, &z), MONOSTAMP_EINVAL);
    CHECK(z == NULL);
    longname[MONOSTAMP_ZONE_NAME_MAX] = '\0';
    CHECK_RC(monostamp_zone_open(longname, &z), MONOSTAMP_ENOZONE);
}

/* A one-type TZif v1 file with offset `utoff`: "TZif", version 0, 15
 * reserved bytes, six counts (one type, four abbreviation bytes), then the
 * type (utoff, isdst, abbrind) and "XXX\0". */
static int parse_one_type(int32_t utoff)
{
    unsigned char f[44 + 6 + 4] = "TZif";
    uint32_t u = (uint32_t)utoff;
    monostamp__tzdata *d = NULL;
    f[4 + 1 + 15 + 4 * 4 + 3] = 1; /* typecnt */
    f[4 + 1 + 15 + 4 * 5 + 3] = 4; /* charcnt */
    f[44] = (unsigned char)(u >> 24);
    f[45] = (unsigned char)(u >> 16);
    f[46] = (unsigned char)(u >> 8);
    f[47] = (unsigned char)u;
    memcpy(f + 50, "XXX", 4);
    int rc = monostamp__tzif_parse(f, sizeof f, &d);
    monostamp__tzdata_free(d);
    return rc;
}

static void test_offsets_stay_under_a_day(void)
{
    CHECK_OK(parse_one_type(86399));
    CHECK_OK(parse_one_type(-86399));
    CHECK_OK(parse_one_type(50400)); /* +14:00, Kiribati */
    CHECK_RC(parse_one_type(86400), MONOSTAMP_ENOZONE);
    CHECK_RC(parse_one_type(-86400), MONOSTAMP_ENOZONE);
    CHECK_RC(parse_one_type(93599), MONOSTAMP_ENOZONE); /* RFC 8536's own bound */
    monostamp_zone *z = NULL;
    CHECK_OK(monostamp_zone_open("XXX-23:59:59", &z));
    int32_t off = 0;
    CHECK_OK(monostamp_zone_offset(z, 0, &off));
    CHECK_EQ(off, 86399);
    monostamp_zone_close(z);
}

static void test_bad_names(void)
{
    static const char *bad[] = {
        "Nowhere/Atlantis", "Europe/Berlin/x", "../../../../etc/passwd", "/dev/null",
        "/nonexistent/zone", "EST", /* a file on most systems; see below */
        "AB5", "EST5EDT,M3.2.0", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0",
        "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,J0,J365", "EST5EDT,J366,J1", "EST5EDT,366,1",
        "EST25", "EST5EDT,M3.2.0/168,M11.1.0", "EST5EDT,M3.2.0/1:60,M11.1.0",
        "<E>5", "<EST5", "EST5EDT,M3.2.0,M11.1.0,", "EST5EDT,M3.2.0,M11.1.0x",
        "EST 5", "EST5:99", "EST-", "EST+", "EST5EDT4:", "5EST", ":", "UTC1 ",
        /* Offsets of 24 h or more: no ISO 8601 form, no Python timezone. */
        "XXX-24:59:59", "XXX-24", "XXX24", "XXX24:00:00", "XXX-23:30YYY", "XXX5YYY-24",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        monostamp_zone *z = NULL;
        int rc = monostamp_zone_open(bad[i], &z);
        if (strcmp(bad[i], "EST") == 0 || strcmp(bad[i], ":") == 0) {
            /* "EST" is a tz database file; ":" is the empty name, UTC. */
            if (rc == 0) monostamp_zone_close(z);
            continue;
        }
        if (rc != MONOSTAMP_ENOZONE) fprintf(stderr, "  accepted: \"%s\"\n", bad[i]);
        CHECK_RC(rc, MONOSTAMP_ENOZONE);
        CHECK(z == NULL);
    }
}

static char tmpdir[200];

#if !defined(_WIN32)
static void hang_detected(int sig)
{
    (void)sig;
    static const char msg[] = "  test_zone_input: opening a FIFO as a zone hung\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(2);
    _exit(1);
}
#endif

static void test_bad_files(void)
{
    size_t len = 0;
    unsigned char *ny = read_zone("America/New_York", &len);
    char *old_tzdir = getenv("TZDIR") ? strdup(getenv("TZDIR")) : NULL;
    monostamp_zone *z = NULL;
    static const unsigned char garbage[] = "TZif2 this is not a zone file at all, really";
    unsigned char *big;
    if (ny == NULL) {
        printf("  (no America/New_York: bad-file test skipped)\n");
        free(old_tzdir);
        return;
    }
    setenv("TZDIR", tmpdir, 1);
    CHECK(write_file(tmpdir, "empty", "", 0) == 0);
    CHECK(write_file(tmpdir, "garbage", garbage, sizeof garbage) == 0);
    CHECK_RC(monostamp_zone_open("empty", &z), MONOSTAMP_ENOZONE);
    CHECK_RC(monostamp_zone_open("garbage", &z), MONOSTAMP_ENOZONE);
    CHECK_RC(monostamp_zone_open("nonexistent", &z), MONOSTAMP_ENOZONE);
    /* A directory is no zone. */
    CHECK_RC(monostamp_zone_open(".", &z), MONOSTAMP_ENOZONE);
    /* Nor a FIFO, which must be refused at once, not waited on: alarm()
     * turns a hang into a failure with a message. */
#if defined(_WIN32)
    SKIP_PART("no FIFOs in the file system (a named pipe is no file to open as a zone)");
#else
    {
        char fifo[300];
        snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
        CHECK_EQ(mkfifo(fifo, 0600), 0);
        signal(SIGALRM, hang_detected);
        alarm(5);
        CHECK_RC(monostamp_zone_open("fifo", &z), MONOSTAMP_ENOZONE);
        alarm(0);
        unlink(fifo);
    }
#endif
    /* Names stay inside the zone database, as Python's zoneinfo keeps them:
     * the good file under another spelling is refused. */
    CHECK(write_file(tmpdir, "inside", ny, len) == 0);
    CHECK_OK(monostamp_zone_open("inside", &z));
    monostamp_zone_close(z);
    {
        char name[300];
        snprintf(name, sizeof name, "%s/inside", tmpdir);
        CHECK_RC(monostamp_zone_open(name, &z), MONOSTAMP_ENOZONE); /* absolute */
        snprintf(name, sizeof name, ":%s/inside", tmpdir);
        CHECK_RC(monostamp_zone_open(name, &z), MONOSTAMP_ENOZONE);
        CHECK_RC(monostamp_zone_open("../x/../inside", &z), MONOSTAMP_ENOZONE);
        CHECK_RC(monostamp_zone_open("sub/../inside", &z), MONOSTAMP_ENOZONE);
        CHECK_RC(monostamp_zone_open("..", &z), MONOSTAMP_ENOZONE);
        /* ".." inside a longer component is an ordinary name. */
        CHECK_RC(monostamp_zone_open("..inside", &z), MONOSTAMP_ENOZONE);
    }
    /* Every truncation of a good file is refused. */
    for (size_t cut = 0; cut < len; cut += (cut < 200 ? 1 : 7)) {
        CHECK(write_file(tmpdir, "trunc", ny, cut) == 0);
        if (monostamp_zone_open("trunc", &z) != MONOSTAMP_ENOZONE)
            fprintf(stderr, "  truncation at %zu of %zu accepted\n", cut, len);
        CHECK_RC(monostamp_zone_open("trunc", &z), MONOSTAMP_ENOZONE);
    }
    /* The whole file, through TZDIR, works. */
    CHECK(write_file(tmpdir, "whole", ny, len) == 0);
    CHECK_OK(monostamp_zone_open("whole", &z));
    CHECK_EQ(off_at(z, JUL_2026), -14400);
    monostamp_zone_close(z);
    /* Version 1 only: the 32-bit table (zic's fat files reach 2037). */
    ny[4] = 0;
    CHECK(write_file(tmpdir, "v1", ny, len) == 0);
    ny[4] = '2';
    CHECK_OK(monostamp_zone_open("v1", &z));
    CHECK_EQ(off_at(z, JUL_2026), -14400);
    CHECK_EQ(off_at(z, JAN_2026), -18000);
    monostamp_zone_close(z);
    /* Corrupted counts and bytes: never a crash, mostly a refusal. */
    for (size_t i = 0; i < len; i += 3) {
        unsigned char saved = ny[i];
        ny[i] ^= 0xA5;
        CHECK(write_file(tmpdir, "flip", ny, len) == 0);
        if (monostamp_zone_open("flip", &z) == 0) {
            (void)off_at(z, JUL_2026);
            monostamp_zone_close(z);
        }
        ny[i] = saved;
    }
    /* Oversized: refused before reading. */
    big = calloc(1, 2 * 1024 * 1024);
    CHECK(big != NULL);
    memcpy(big, ny, len);
    CHECK(write_file(tmpdir, "big", big, 2 * 1024 * 1024) == 0);
    free(big);
    CHECK_RC(monostamp_zone_open("big", &z), MONOSTAMP_ENOZONE);
    /* An over-long TZDIR: no path, no zone, no crash. */
    {
        char *huge = malloc(10000);
        CHECK(huge != NULL);
        memset(huge, 'd', 9999);
        huge[0] = '/';
        huge[9999] = '\0';
        setenv("TZDIR", huge, 1);
        free(huge);
        CHECK_RC(monostamp_zone_open("America/New_York", &z), MONOSTAMP_ENOZONE);
        CHECK_RC(monostamp_zone_open("whole", &z), MONOSTAMP_ENOZONE);
    }
    if (old_tzdir) setenv("TZDIR", old_tzdir, 1);
    else unsetenv("TZDIR");
    free(old_tzdir);
    free(ny);
}

/* The local zone when TZ is a rule the engine refuses for its offset but
 * glibc reads: TZ=AAA-24 is +24:00 to glibc (POSIX allows hh up to 24).
 * The localtime_r fallback must not pass glibc's +-86400 on: such a zone
 * is UTC, as is any local zone nobody can read, and a clock's stamps carry
 * 0 and format.  (Before: the offset came through as +-86400, which the
 * Python binding used to index its timezone table past its end.) */
static void test_local_offset_of_a_day(void)
{
#if defined(_WIN32)
    SKIP("the C runtime's TZ syntax has no rules of +-24 h to read");
#else
    /* Each rule with the offsets expected in January and in July 2026: a
     * rule with a DST of +24 h is UTC in DST alone (the fallback judges
     * each offset libc reports, as it does not know the rule). */
    static const struct {
        const char *tz;
        int32_t jan, jul;
    } rules[] = {{"AAA-24", 0, 0}, {"AAA+24", 0, 0}, {"AAA24", 0, 0}, {"AAA-24:00:00", 0, 0},
                 {"AAA-23:59BBB-24,M3.2.0,M11.1.0", 86340, 0}};
    char *old_tz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        monostamp_zone *local = NULL;
        monostamp_clock clock;
        monostamp_stamp st;
        char text[64];
        int32_t off = 12345;
        setenv("TZ", rules[i].tz, 1);
        monostamp_zone_changed();
        CHECK_OK(monostamp_zone_open(NULL, &local));
        CHECK_OK(monostamp_zone_offset(local, INT64_C(1767225600) * 1000000000, &off));
        if (off != rules[i].jan) fprintf(stderr, "  TZ=%s: January %d\n", rules[i].tz, off);
        CHECK_EQ(off, rules[i].jan);
        CHECK_OK(monostamp_zone_offset(local, INT64_C(1782864000) * 1000000000, &off));
        if (off != rules[i].jul) fprintf(stderr, "  TZ=%s: July %d\n", rules[i].tz, off);
        CHECK_EQ(off, rules[i].jul);
        monostamp_zone_close(local);
        CHECK_OK(monostamp_clock_init(&clock, NULL));
        CHECK_OK(monostamp_now(&clock, &st));
        CHECK(st.offset_s > -86400 && st.offset_s < 86400);
        CHECK(monostamp_format_iso8601(text, sizeof text, st.utc_ns, st.offset_s, 9, 0) > 0);
        monostamp_clock_destroy(&clock);
    }
    if (old_tz != NULL) setenv("TZ", old_tz, 1);
    else unsetenv("TZ");
    monostamp_zone_changed();
    free(old_tz);
#endif
}

/* ---------------------------------------------------------------- pure parse */

static void test_tzif_parse_direct(void)
{
    monostamp__tzdata *d = NULL;
    static const unsigned char v1_utc[] = {
        'T', 'Z', 'i', 'f', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4,
        0, 0, 0, 0, 0, 0, 'U', 'T', 'C', 0};
    int32_t off;
    int64_t from, until;
    CHECK_RC(monostamp__tzif_parse(v1_utc, sizeof v1_utc, &d), 0);
    monostamp__tzdata_window(d, 12345, &off, &from, &until);
    CHECK_EQ(off, 0);
    CHECK_EQ(from, INT64_MIN);
    CHECK_EQ(until, INT64_MAX);
    monostamp__tzdata_free(d);
    for (size_t n = 0; n < sizeof v1_utc; n++)
        CHECK_RC(monostamp__tzif_parse(v1_utc, n, &d), MONOSTAMP_ENOZONE);
}

int main(void)
{
    if (pin_zones() != 0) return 1;
    if (check_make_temp_dir(tmpdir, sizeof tmpdir, "monostamp-test-zone-input") != 0) {
        perror("test_zone_input: temporary directory");
        return 1;
    }
    RUN(test_bad_arguments);
    RUN(test_bad_names);
    RUN(test_offsets_stay_under_a_day);
    RUN(test_local_offset_of_a_day);
    RUN(test_bad_files);
    RUN(test_tzif_parse_direct);
    if (check_remove_tree(tmpdir) != 0) fprintf(stderr, "  could not remove %s\n", tmpdir);
    return check_summary();
}
