/* test_tzrule_glibc.c: random POSIX TZ rules against two oracles, glibc
 * and Python's zoneinfo.
 *
 * A fixed-seed generator (tzrule_gen.h) writes valid POSIX TZ strings with
 * the RFC 8536 extensions: std and dst names (plain and <quoted>), offsets with hours,
 * minutes and seconds strictly within a day either way, start and end dates
 * of all three kinds (Jn, n, Mm.w.d) and change times from -167 h to +167 h.
 * Two kinds of rule:
 *   - free pairs: each date anywhere, half of them near the ends of the
 *     year so that long change times push a change into the next or the
 *     previous year;
 *   - close pairs (a third of the rules): start and end in the same or the
 *     adjacent month, a few days apart, so that which comes first changes
 *     from year to year (SXTF1NDUG0,M7.3.4,J199).
 * Each rule is checked at t-1, t, t+1 around every change of five
 * consecutive years, around each 1 January 00:00 UTC and at random
 * instants, and at both ends of every window the engine returns there (its
 * own offset at a window's first and last second must be the one at t:
 * a window never spans a change).
 *
 * glibc is the oracle: the engine must give glibc's offset at every
 * instant checked (the transition in force is the one glibc and
 * zoneinfo give, also where a change time moves a change into another day
 * or year).  glibc answers in this process (localtime_r under TZ);
 * Python's zoneinfo answers too, through tests/c/tzrule_zoneinfo.py (run
 * once over all the instants, with $MONOSTAMP_TEST_PYTHON, default
 * python3), which reads each rule as the footer of a TZif file with no
 * transitions.  Per instant:
 *   - the engine must equal glibc;
 *   - glibc must equal the test's own arithmetic (posix_offset: t's UTC
 *     year's two changes alone decide; "if the second date is specified as
 *     earlier in the year than the first, then the year begins and ends in
 *     Daylight Saving Time", POSIX.1-2024), so the test knows what glibc
 *     does and does not merely copy it;
 *   - zoneinfo must equal glibc, or differ by one of its known readings
 *     (named below; tests/vectors/tzrule.tsv keeps one of each kind);
 *   - instants where a change pushed out of its own year lies between t
 *     and t's year's start are counted (judge(): there tzcode's
 *     year-by-year layout, and RFC 8536's permanent DST, read otherwise;
 *     docs/offset-engine.md, trap 10).
 * Over a third of the rules have a change time beyond 24 h either way (up
 * to 167 h; 385 of the 900), which the test counts and requires.
 * Rules are checked from 1971 on: glibc's compute_change starts every year
 * before 1970 at 1970-01-01.  Rules with a DST name but no dates are not
 * generated (glibc reads posixrules for them, the engine the US rules).
 *
 * Sizes: 900 rules by default (a few seconds), 12,000 with
 * MONOSTAMP_TZRULE_FULL=1 (make test-tzrule-full), an eighth under
 * MONOSTAMP_TEST_TSAN. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(_WIN32)
#include <unistd.h> /* close, unlink */
#endif

#include "check.h"
#include "monostamp.h"
#include "tzrule.h"
#include "vectors.h"
#if !defined(_WIN32)
#include "tzrule_gen.h"
#endif

#define NS INT64_C(1000000000)
#define RANDOM_PER_YEAR 8

/* glibc and zoneinfo are the oracles of what follows, up to
 * test_named_rules: not on Windows (see test_random_rules). */
#if !defined(_WIN32)
/* ----------------------------------------------------------------- checks */

static long rules_close, rules_crossing, rules_long_times, instants, windows_checked, wrong, rules_wrong;
static int reported_this_rule;

/* Reports the first wrong instant of each of the first 20 wrong rules. */
static int report(void)
{
    if (reported_this_rule) return 0;
    reported_this_rule = 1;
    return rules_wrong < 20;
}

static int32_t glibc_offset(int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (localtime_r(&tt, &tm) == NULL) return INT32_MIN;
    return (int32_t)tm.tm_gmtoff;
}

static int32_t engine_offset(const monostamp__tzrule *rule, int64_t t)
{
    int32_t o;
    int64_t f, u;
    monostamp__tzrule_window(rule, t, &o, &f, &u);
    return o;
}

/* The window at t holds t, and the engine's offset is the same at every
 * change instant the test knows of inside it (each year's start, end and
 * 1 January, and the second before each): a window never spans a change. */
static int check_window(const gen_rule *r, const monostamp__tzrule *rule, int64_t t,
                        int32_t mine, int64_t from, int64_t until)
{
    int64_t y = utc_year(t);
    if (from > t || until <= t) {
        if (report())
            fprintf(stderr, "  TZ=\"%s\": window [%lld, %lld) misses t=%lld\n", r->text,
                    (long long)from, (long long)until, (long long)t);
        return 0;
    }
    windows_checked++;
    for (int64_t k = y - 3; k <= y + 3; k++) {
        year_changes c = changes_of(r, k);
        int64_t at[3];
        at[0] = c.start_s;
        at[1] = c.end_s;
        at[2] = civil_days(k, 1, 1) * 86400;
        for (int i = 0; i < 3; i++) {
            for (int64_t x = at[i] - 1; x <= at[i]; x++) {
                if (x < from || x >= until) continue;
                if (engine_offset(rule, x) != mine) {
                    if (report())
                        fprintf(stderr, "  TZ=\"%s\": window [%lld, %lld) of t=%lld (offset %d) "
                                "spans a change: %d at %lld\n", r->text, (long long)from,
                                (long long)until, (long long)t, mine, engine_offset(rule, x),
                                (long long)x);
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* One query for the oracles: t, the engine's and glibc's offsets, how to
 * judge t, POSIX's reading of t's own year, and that reading with
 * zoneinfo's day counting, with its reading of equal instants, and with
 * both (to name zoneinfo's known deviations). */
static void ask(FILE *q, const gen_rule *r, const monostamp__tzrule *rule, int64_t t)
{
    instants++;
    fprintf(q, "T\t%lld\t%ld\t%ld\t%d\t%ld\t%ld\t%ld\t%ld\n", (long long)t,
            (long)engine_offset(rule, t), (long)glibc_offset(t), judge(r, t),
            (long)posix_offset(r, t), (long)year_offset(r, t, 1, 0),
            (long)year_offset(r, t, 0, 1), (long)year_offset(r, t, 1, 1));
}

/* Checks the engine's windows in this process and writes every instant to
 * ask the oracles about to `q`; 0 if something is already wrong. */
static int check_rule(FILE *q, const gen_rule *r, int64_t first_year, int via_zone)
{
    monostamp__tzrule rule;
    int ok = 1;
    int64_t last_from = 0, last_until = 0;
    reported_this_rule = 0;
    if (monostamp__tzrule_parse(r->text, strlen(r->text), &rule) != 0) {
        fprintf(stderr, "  TZ=\"%s\": the engine refuses a valid rule\n", r->text);
        return 0;
    }
    setenv("TZ", r->text, 1);
    tzset();
    /* glibc took the whole string: both names are as written. */
    if (strcmp(tzname[0], r->std_name) != 0 || strcmp(tzname[1], r->dst_name) != 0) {
        fprintf(stderr, "  TZ=\"%s\": glibc read the names as %s/%s\n", r->text, tzname[0],
                tzname[1]);
        return 0;
    }
    fprintf(q, "R\t%s\n", r->text);
    fill_cache(r, first_year);
    rules_long_times += r->start.time_s < -86400 || r->start.time_s > 86400 ||
                        r->end.time_s < -86400 || r->end.time_s > 86400;
    /* Count the rules that push a change across 1 January. */
    for (int64_t y = first_year; y < first_year + YEARS; y++) {
        year_changes c = changes_of(r, y);
        int64_t lo = civil_days(y, 1, 1) * 86400, hi = civil_days(y + 1, 1, 1) * 86400;
        if (c.start_s < lo || c.start_s >= hi || c.end_s < lo || c.end_s >= hi) {
            rules_crossing++;
            break;
        }
    }
    for (int64_t y = first_year; y < first_year + YEARS; y++) {
        year_changes c = changes_of(r, y);
        int64_t jan1 = civil_days(y, 1, 1) * 86400;
        static const int64_t around_change[] = {-86400, -3601, -3600, -1, 0, 1, 3600, 86400};
        static const int64_t around_jan1[] = {-200 * 3600, -86400, -1, 0, 1, 3600, 86400,
                                              200 * 3600};
        int64_t ts[2 * 8 + 8 + RANDOM_PER_YEAR];
        size_t n = 0;
        for (size_t i = 0; i < 8; i++) {
            ts[n++] = c.start_s + around_change[i];
            ts[n++] = c.end_s + around_change[i];
        }
        for (size_t i = 0; i < 8; i++) ts[n++] = jan1 + around_jan1[i];
        for (int i = 0; i < RANDOM_PER_YEAR; i++) ts[n++] = jan1 + rnd(0, 365 * 86400 - 1);
        for (size_t i = 0; i < n; i++) {
            int32_t mine;
            int64_t from, until;
            monostamp__tzrule_window(&rule, ts[i], &mine, &from, &until);
            if (!check_window(r, &rule, ts[i], mine, from, until)) {
                ok = 0;
                continue;
            }
            ask(q, r, &rule, ts[i]);
            /* The window's ends go to the oracles too (once per window). */
            if (from == last_from && until == last_until) continue;
            last_from = from;
            last_until = until;
            if (from != INT64_MIN) ask(q, r, &rule, from);
            if (until != INT64_MAX) ask(q, r, &rule, until - 1);
        }
    }
    if (via_zone && first_year + YEARS < 2262) {
        /* The public path gives the same as the rule functions (in its
         * int64 nanosecond range, which ends in 2262). */
        monostamp_zone *z = NULL;
        int rc = monostamp_zone_open(r->text, &z);
        if (rc != 0) {
            ok = 0;
            fprintf(stderr, "  TZ=\"%s\": monostamp_zone_open: %s\n", r->text,
                    monostamp_strerror(rc));
        } else {
            for (int i = 0; i < 16; i++) {
                int64_t t = civil_days(first_year, 1, 1) * 86400 +
                            rnd(-86400, YEARS * 365 * INT64_C(86400));
                int32_t a = 0, b = engine_offset(&rule, t);
                if (monostamp_zone_offset(z, t * NS, &a) != 0 || a != b) {
                    ok = 0;
                    fprintf(stderr, "  TZ=\"%s\" at %lld: zone %d, rule %d\n", r->text,
                            (long long)t, a, b);
                    break;
                }
            }
            monostamp_zone_close(z);
        }
    }
    return ok;
}

/* ------------------------------------------------- the oracles' answers */

static long instants_judged, glibc_wrong, glibc_wrong_rules, glibc_not_posix, agree, disagree, other_year,
    zoneinfo_days_off, zoneinfo_tie, zoneinfo_both, zoneinfo_unexplained, zoneinfo_errors,
    before_1971;

static void fmt_utc(int64_t t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Reads the answers back (the queries with zoneinfo's offset appended) and
 * judges every instant; 0 if the oracle could not be run. */
static int judge_answers(const char *answers_path)
{
    FILE *a = fopen(answers_path, "r");
    char line[512], rule_text[200] = "";
    long answered = 0;
    int reported = 0, rule_counted = 0;
    if (a == NULL) return 0;
    while (fgets(line, sizeof line, a) != NULL) {
        char *f[12];
        int nf = split(line, f, 12);
        long long t;
        long mine, glibc, how, posix, zi_days, zi_tie, zi_both, zi;
        if (nf == 2 && strcmp(f[0], "R") == 0) {
            snprintf(rule_text, sizeof rule_text, "%s", f[1]);
            rule_counted = 0;
            continue;
        }
        if (nf != 10 || strcmp(f[0], "T") != 0) continue;
        answered++;
        t = atoll(f[1]);
        mine = atol(f[2]);
        glibc = atol(f[3]);
        how = atol(f[4]);
        posix = atol(f[5]);
        zi_days = atol(f[6]);
        zi_tie = atol(f[7]);
        zi_both = atol(f[8]);
        if (strncmp(f[9], "ERR", 3) == 0) {
            if (zoneinfo_errors++ < 5)
                fprintf(stderr, "  TZ=\"%s\" at %lld: zoneinfo: %s\n", rule_text, t, f[9]);
            continue;
        }
        zi = atol(f[9]);
        if (how == BEFORE_1971) {
            before_1971++;
            continue;
        }
        instants_judged++;
        other_year += how == OTHER_YEAR;
        if (mine != glibc) {
            glibc_wrong++;
            glibc_wrong_rules += !rule_counted;
            rule_counted = 1;
            if (reported++ < 20) {
                char buf[32];
                fmt_utc(t, buf, sizeof buf);
                fprintf(stderr, "  TZ=\"%s\" at %lld (%s): glibc %ld, zoneinfo %ld, engine %ld%s\n",
                        rule_text, t, buf, glibc, zi, mine,
                        how == OTHER_YEAR ? " (a change pushed across 1 January)" : "");
            }
        }
        if (glibc != posix && glibc_not_posix++ < 5)
            fprintf(stderr, "  TZ=\"%s\" at %lld: glibc %ld, the test's arithmetic %ld\n",
                    rule_text, t, glibc, posix);
        if (glibc == zi) {
            agree++;
        } else {
            disagree++;
            if (zi == zi_days) zoneinfo_days_off++;
            else if (zi == zi_tie) zoneinfo_tie++;
            else if (zi == zi_both) zoneinfo_both++;
            else if (zoneinfo_unexplained++ < 20) {
                char buf[32];
                fmt_utc(t, buf, sizeof buf);
                fprintf(stderr, "  zoneinfo unexplained: TZ=\"%s\" at %lld (%s): glibc %ld, "
                        "zoneinfo %ld, engine %ld\n", rule_text, t, buf, glibc, zi, mine);
            }
        }
    }
    fclose(a);
    if (answered != instants) {
        fprintf(stderr, "  zoneinfo answered %ld of %ld instants\n", answered, instants);
        return 0;
    }
    return 1;
}

#endif /* !_WIN32 */

/* A rule found by attacking the engine (trap 4's kind), by name: read one UTC
 * year at a time, as glibc and zoneinfo read it. */
static void test_named_rules(void)
{
    monostamp__tzrule rule;
    int32_t off;
    int64_t from, until;
    const char *xxx = "XXX3YYY,0/0,365/25";
    const int64_t jan2027 = INT64_C(1798761600);
    CHECK_EQ(monostamp__tzrule_parse(xxx, strlen(xxx), &rule), 0);
    /* 2026-07-01: DST, as glibc, zoneinfo and RFC 8536 all say. */
    monostamp__tzrule_window(&rule, INT64_C(1782864000), &off, &from, &until);
    CHECK_EQ(off, -7200);
    /* 2026's DST runs to 2027-01-02T03:00Z, but 2027 is read alone: its
     * DST starts at 03:00Z on 1 January (day 0, 00:00 at UTC-3), so the
     * first three hours are standard time, glibc's -10800. */
    for (int64_t t = jan2027 - 3 * 86400; t < jan2027 + 3 * 86400; t += 1800) {
        monostamp__tzrule_window(&rule, t, &off, &from, &until);
        CHECK_EQ(off, t >= jan2027 && t < jan2027 + 3 * 3600 ? -10800 : -7200);
        CHECK(from <= t && t < until);
    }
}

/* Far outside the 2^40 s the header asks for, the engine still answers
 * with a window that holds t and one of the rule's two offsets, and
 * nothing overflows (UBSan watches under make test-asan). */
static void test_far_instants(void)
{
    static const int64_t extreme_instants[] = {INT64_MIN, INT64_MIN + 1, -(INT64_C(1) << 40),
                                  -(INT64_C(1) << 40) + 1, (INT64_C(1) << 40) - 1,
                                  INT64_C(1) << 40, INT64_MAX - 1, INT64_MAX};
    const char *text = "SXTF1NDUG0,M7.3.4/-167,J199/167";
    monostamp__tzrule rule;
    CHECK_EQ(monostamp__tzrule_parse(text, strlen(text), &rule), 0);
    for (size_t i = 0; i < sizeof extreme_instants / sizeof extreme_instants[0]; i++) {
        int32_t off;
        int64_t from, until;
        monostamp__tzrule_window(&rule, extreme_instants[i], &off, &from, &until);
        CHECK(off == -3600 || off == 0);
        CHECK(from <= extreme_instants[i]);
        CHECK(extreme_instants[i] < until || until == INT64_MAX);
    }
}

/* tests/vectors/tzrule.tsv: rule, instant, offset POSIX gives, and why. */
static void test_vectors(void)
{
    FILE *f = open_vectors("tzrule.tsv");
    char line[512];
    int n = 0;
    CHECK(f != NULL);
    if (f == NULL) return;
    while (fgets(line, sizeof line, f) != NULL) {
        char *fld[8];
        monostamp__tzrule rule;
        int32_t off;
        int64_t t, from, until;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (split(line, fld, 8) < 4) {
            CHECK(0);
            continue;
        }
        n++;
        CHECK_EQ(monostamp__tzrule_parse(fld[0], strlen(fld[0]), &rule), 0);
        t = atoll(fld[1]);
        monostamp__tzrule_window(&rule, t, &off, &from, &until);
        if (off != atol(fld[2]))
            fprintf(stderr, "  TZ=\"%s\" at %s: engine %d, expected %s (%s)\n", fld[0], fld[1],
                    off, fld[2], fld[3]);
        CHECK_EQ(off, (int32_t)atol(fld[2]));
        CHECK(from <= t && t < until);
    }
    fclose(f);
    CHECK(n >= 10);
}

static void test_random_rules(void)
{
#if defined(_WIN32)
    SKIP("glibc is this test's oracle; Windows' C runtime reads TZ in its own, "
         "narrower syntax (no change dates), so there is nothing to compare with");
#else
    int full = getenv("MONOSTAMP_TZRULE_FULL") != NULL;
    int count = full ? 12000 : 900;
    const char *python = getenv("MONOSTAMP_TEST_PYTHON");
    char *old_tz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    char qpath[] = "/tmp/monostamp-tzrule-q-XXXXXX", apath[] = "/tmp/monostamp-tzrule-a-XXXXXX";
    char cmd[8400];
    int qfd = mkstemp(qpath), afd = mkstemp(apath), rc, judged;
    FILE *q = qfd >= 0 ? fdopen(qfd, "w") : NULL;
    if (getenv("MONOSTAMP_TEST_TSAN")) count /= 8;
    if (afd >= 0) close(afd);
    if (q == NULL || afd < 0) {
        if (qfd >= 0) unlink(qpath);
        if (afd >= 0) unlink(apath);
        free(old_tz);
        CHECK(!"temporary files for the zoneinfo oracle");
    }
    for (int i = 0; i < count; i++) {
        gen_rule r;
        int64_t first_year;
        int close = i % 3 == 0;
        gen(&r, close);
        rules_close += close;
        /* Mostly the years people use; sometimes far out either way. */
        first_year = rnd(0, 3) ? rnd(1971, 2100) : rnd(1971, 2400);
        if (!check_rule(q, &r, first_year, i % 8 == 0)) {
            wrong++;
            rules_wrong++;
        }
    }
    fclose(q);
    if (old_tz != NULL) setenv("TZ", old_tz, 1);
    else unsetenv("TZ");
    tzset();
    free(old_tz);
    snprintf(cmd, sizeof cmd, "%s tests/c/tzrule_zoneinfo.py < %s > %s",
             python ? python : "python3", qpath, apath);
    rc = system(cmd);
    if (rc != 0) fprintf(stderr, "  the zoneinfo oracle failed (%d): %s\n", rc, cmd);
    judged = rc == 0 && judge_answers(apath);
    unlink(qpath);
    unlink(apath);
    CHECK_EQ(rc, 0);
    CHECK(judged);
    printf("  %d rules (%ld close pairs, %ld with a change time beyond 24 h, %ld with a change "
           "across 1 January), %ld instants, %ld windows checked in process (%ld rules wrong "
           "there)\n", count, rules_close, rules_long_times, rules_crossing, instants,
           windows_checked, rules_wrong);
    printf("  judged from 1971 on: %ld; engine differs from glibc at %ld (in %ld rules); glibc "
           "differs from the test's arithmetic at %ld\n", instants_judged, glibc_wrong, glibc_wrong_rules,
           glibc_not_posix);
    printf("  a change pushed out of its year lies between the year's start and t at %ld\n",
           other_year);
    printf("  zoneinfo agrees with glibc at %ld, differs at %ld: n a day early or J59 on "
           "29 February in leap years %ld, equal start and end as DST all year %ld, both %ld, "
           "unexplained %ld; refused %ld; before 1971: %ld\n", agree, disagree, zoneinfo_days_off,
           zoneinfo_tie, zoneinfo_both, zoneinfo_unexplained, zoneinfo_errors, before_1971);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(glibc_wrong, 0);
    CHECK_EQ(glibc_not_posix, 0);
    CHECK_EQ(zoneinfo_errors, 0);
    /* A new kind of disagreement needs a verdict (and a vector) first. */
    CHECK_EQ(zoneinfo_unexplained, 0);
    /* The comparison is real: most instants are judged, zoneinfo mostly
     * agrees, and long change times and year crossings are well sampled
     * (judged on a sample of some size: the sanitizer runs draw ~100
     * rules, of which a handful cross 1 January). */
    CHECK_LT(before_1971 * 10, instants_judged);
    CHECK_LT(disagree * 4, agree);
    CHECK_LT(count, rules_long_times * 4);
    if (count >= 500)
        CHECK_LT(count, rules_crossing * 40);
    else
        CHECK_LT(0, rules_crossing);
    CHECK_LT(0, other_year);
#endif
}

int main(void)
{
    RUN(test_named_rules);
    RUN(test_far_instants);
    RUN(test_vectors);
    RUN(test_random_rules);
    return check_summary();
}
