/* test_zone_all.c: every zone of the system tz database against glibc.
 *
 * For each distinct TZif file under the zoneinfo directory (posix/ and
 * right/ skipped, files deduplicated by content), the offset from
 * monostamp_zone_open(name) is compared with localtime_r's tm_gmtoff
 * (TZ=name, tzset(); the test may do this, the library never does):
 *   - every 6 days from 1970 to 2100 (offset changes are >= 7 days apart),
 *   - at t-1, t, t+1 for every change glibc shows (found by bisection),
 *   - at t-1, t, t+1 for every window end our engine publishes;
 * and the fold (monostamp_zone_fold) against the standard library's rule
 * over glibc's offsets (CPython's local_to_seconds: the offset a day
 * before, and where it changed) at t-1, t, t+d-1 and t+d of every change
 * that sets the clocks back by d, and at every 6-day step.
 * Changes from 2038 on come from the footer rule in both implementations.
 * Prints the number of checks and of mismatches; any mismatch fails.
 * Under MONOSTAMP_TEST_TSAN only every 4th zone is checked (TSan makes
 * localtime_r slow), and the output says so. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "calendar.h"
#include "check.h"
#include "monostamp.h"
#include "zone.h"

/* glibc is the oracle of everything below: none on Windows. */
#if !defined(_WIN32)
#define T_1970 INT64_C(0)
#define T_2038 INT64_C(2145916800) /* 2038-01-01T00:00:00Z */
#define T_2100 INT64_C(4102444800) /* 2100-01-01T00:00:00Z */
#define STEP_S (6 * 86400)
#define MAX_ZONES 4096

typedef struct zone_file {
    char name[256];
    uint64_t hash;
    long size;
} zone_file;

static zone_file *files;
static int nfiles;
static long checks_early, checks_late, wrong, changes_early, changes_late, fold_checks;
static int printed;

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static void add_file(const char *root, const char *rel)
{
    char path[8192];
    unsigned char buf[1 << 16];
    FILE *f;
    size_t n;
    uint64_t h;
    if (snprintf(path, sizeof path, "%s/%s", root, rel) >= (int)sizeof path) return;
    f = fopen(path, "rb");
    if (f == NULL) return;
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n < 44 || memcmp(buf, "TZif", 4) != 0 || strlen(rel) > 255) return;
    h = fnv1a(buf, n);
    for (int i = 0; i < nfiles; i++)
        if (files[i].hash == h && files[i].size == (long)n) return; /* a link */
    if (nfiles == MAX_ZONES) return;
    memcpy(files[nfiles].name, rel, strlen(rel) + 1); /* <= 255 checked above */
    files[nfiles].hash = h;
    files[nfiles].size = (long)n;
    nfiles++;
}

static void walk(const char *root, const char *rel)
{
    char path[8192], sub[4096];
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "%s%s%s", root, rel[0] ? "/" : "", rel);
    d = opendir(path);
    if (d == NULL) return;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.') continue;
        if (rel[0] == '\0' && (strcmp(e->d_name, "posix") == 0 ||
                               strcmp(e->d_name, "right") == 0 ||
                               strcmp(e->d_name, "posixrules") == 0 ||
                               strcmp(e->d_name, "localtime") == 0))
            continue;
        if (snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >=
                (int)sizeof sub ||
            snprintf(path, sizeof path, "%s/%s", root, sub) >= (int)sizeof path)
            continue;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) walk(root, sub);
        else if (S_ISREG(st.st_mode)) add_file(root, sub);
    }
    closedir(d);
}

static int cmp_files(const void *a, const void *b)
{
    return strcmp(((const zone_file *)a)->name, ((const zone_file *)b)->name);
}

static int32_t glibc_offset(int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (localtime_r(&tt, &tm) == NULL) return INT32_MIN;
    return (int32_t)tm.tm_gmtoff;
}

static int32_t our_offset(monostamp_zone *z, int64_t t, int64_t *until_s)
{
    int32_t off = INT32_MIN;
    if (monostamp_zone_offset(z, t * MONOSTAMP__NS_PER_S, &off) != 0) return INT32_MIN;
    if (until_s != NULL) {
        int64_t u = atomic_load(&z->until_ns);
        *until_s = u == INT64_MAX ? INT64_MAX : monostamp__floor_div(u, MONOSTAMP__NS_PER_S);
    }
    return off;
}

static void compare(const char *name, monostamp_zone *z, int64_t t)
{
    int32_t g = glibc_offset(t), o = our_offset(z, t, NULL);
    if (t < T_2038) checks_early++;
    else checks_late++;
    if (g != o) {
        wrong++;
        if (printed++ < 20)
            fprintf(stderr, "  MISMATCH %s at %lld: ours %d, glibc %d\n", name,
                    (long long)t, (int)o, (int)g);
    }
}

/* The fold of the naive local time of t as Python's datetime.fromtimestamp
 * gives it, from glibc's offsets. */
static int glibc_fold(int64_t t)
{
    int32_t probe = glibc_offset(t - 86400), off = glibc_offset(t);
    return probe > off && glibc_offset(t + (off - probe)) == probe;
}

static void compare_fold(const char *name, monostamp_zone *z, int64_t t)
{
    int ours = -1, g = glibc_fold(t);
    monostamp_zone_fold(z, t * MONOSTAMP__NS_PER_S, &ours);
    fold_checks++;
    if (ours != g) {
        wrong++;
        if (printed++ < 20)
            fprintf(stderr, "  FOLD MISMATCH %s at %lld: ours %d, glibc's %d\n", name,
                    (long long)t, ours, g);
    }
}

static void around(const char *name, monostamp_zone *z, int64_t t)
{
    compare(name, z, t - 1);
    compare(name, z, t);
    compare(name, z, t + 1);
}

static void check_zone(const char *name)
{
    monostamp_zone *z = NULL;
    int32_t prev;
    int64_t t, prev_t;
    int rc;
    setenv("TZ", name, 1);
    tzset();
    rc = monostamp_zone_open(name, &z);
    if (rc != 0) {
        wrong++;
        fprintf(stderr, "  %s: monostamp_zone_open failed: %s\n", name, monostamp_strerror(rc));
        return;
    }
    /* glibc's changes, found by scanning and bisecting. */
    prev_t = T_1970;
    prev = glibc_offset(prev_t);
    for (t = T_1970; t <= T_2100; t += STEP_S) {
        int32_t g = glibc_offset(t);
        compare(name, z, t);
        compare_fold(name, z, t);
        if (g != prev) {
            int64_t lo = prev_t, hi = t; /* glibc(lo) == prev != glibc(hi) */
            while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;
                if (glibc_offset(mid) == prev) lo = mid;
                else hi = mid;
            }
            around(name, z, hi);
            if (g < prev) { /* the clocks went back by prev - g */
                compare_fold(name, z, hi - 1);
                compare_fold(name, z, hi);
                compare_fold(name, z, hi + (prev - g) - 1);
                compare_fold(name, z, hi + (prev - g));
            }
            if (hi < T_2038) changes_early++;
            else changes_late++;
        }
        prev = g;
        prev_t = t;
    }
    /* Our window ends, walked forward. */
    t = T_1970;
    while (t < T_2100) {
        int64_t until = INT64_MAX;
        our_offset(z, t, &until);
        if (until >= T_2100 || until <= t) break;
        around(name, z, until);
        t = until;
    }
    monostamp_zone_close(z);
}

static void test_all_zones(void)
{
    const char *root = getenv("TZDIR");
    const char *tsan = getenv("MONOSTAMP_TEST_TSAN");
    int every = (tsan != NULL && tsan[0] != '\0') ? 4 : 1;
    int done = 0;
    if (root == NULL || root[0] == '\0') root = "/usr/share/zoneinfo";
    files = calloc(MAX_ZONES, sizeof *files);
    CHECK(files != NULL);
    walk(root, "");
    qsort(files, (size_t)nfiles, sizeof *files, cmp_files);
    if (nfiles == 0) {
        printf("test_zone_all: no zoneinfo under %s; skipped\n", root);
        free(files);
        return;
    }
    for (int i = 0; i < nfiles; i += every) {
        check_zone(files[i].name);
        done++;
    }
    unsetenv("TZ");
    tzset();
    printf("test_zone_all: %d of %d distinct zone files%s; %ld changes 1970-2037, "
           "%ld changes 2038-2100; %ld checks 1970-2037, %ld checks 2038-2100, %ld of the fold; "
           "%ld wrong\n",
           done, nfiles, every > 1 ? " (every 4th: MONOSTAMP_TEST_TSAN)" : "",
           changes_early, changes_late, checks_early, checks_late, fold_checks, wrong);
    free(files);
    CHECK(checks_early > 0);
    CHECK_EQ(wrong, 0);
}

#else
static void test_all_zones(void)
{
    SKIP("glibc's localtime_r is this test's oracle; Windows' C runtime reads "
         "no zoneinfo files (every zone is still parsed by test_zone)");
}
#endif

int main(void)
{
    RUN(test_all_zones);
    return check_summary();
}
