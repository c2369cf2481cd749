/* zone_suggest.c: "did you mean ...?" for a name the core refused: a zone
 * (monostamp_zone_suggest in monostamp.h) or an option's name (host.c).
 * Computed here once, so that every binding suggests the same name: the
 * zone database's names are read from TZDIR (else the system's database,
 * walked by the OS layer) and the nearest by edit distance is kept.  An
 * error path only: it walks a directory tree. */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "os.h"
#include "suggest.h"
#include "zone_source.h"

/* The database's subtrees that repeat every zone (Debian's posix/ and
 * right/) or hold no zone a person types. */
static const char *const skipped[] = {"posix", "right", "SystemV", NULL};

typedef monostamp__near search;

/* Optimal string alignment distance, case ignored: insertions, deletions,
 * substitutions and swaps of neighbours each cost 1.  Gives up (returns
 * `limit` + 1) once every alignment costs more than `limit`. */
static int distance(const char *a, size_t n, const char *b, size_t m, int limit)
{
    int rows[3][MONOSTAMP_ZONE_NAME_MAX + 2];
    int *two = rows[0], *prev = rows[1], *cur = rows[2];
    if (n > MONOSTAMP_ZONE_NAME_MAX || m > MONOSTAMP_ZONE_NAME_MAX)
        return limit + 1;
    if ((n > m ? n - m : m - n) > (size_t)limit)
        return limit + 1;
    for (size_t j = 0; j <= m; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int row_min = cur[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int best = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && two[j - 2] + 1 < best)
                best = two[j - 2] + 1;
            cur[j] = best;
            if (best < row_min)
                row_min = best;
        }
        if (row_min > limit)
            return limit + 1;
        int *t = two;
        two = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

/* 1 if a and b are equal, case ignored. */
static int same_text(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

void monostamp__near_init(monostamp__near *s, const char *name)
{
    s->name = name;
    s->name_len = strnlen(name, MONOSTAMP_ZONE_NAME_MAX + 1);
    s->best[0] = '\0';
    s->best_cost = INT_MAX;
}

void monostamp__near_consider(monostamp__near *s, const char *candidate)
{
    size_t len = strlen(candidate);
    const char *last = strrchr(candidate, '/');
    /* A slip is at most a quarter of the name's letters (at least 1, at
     * most 3): 'Europe/Berln', 'America/New_Yrok', 'Eurpoe/Paris'. */
    int limit = (int)(s->name_len / 4);
    int cost;
    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    if (len > MONOSTAMP_ZONE_NAME_MAX)
        return;
    /* The city alone ('berlin' for 'Europe/Berlin') is as near as a slip. */
    if (last != NULL && same_text(last + 1, s->name))
        cost = 1;
    else
        cost = distance(s->name, s->name_len, candidate, len, limit);
    if (cost > limit)
        return;
    if (cost < s->best_cost || (cost == s->best_cost && strcmp(candidate, s->best) < 0)) {
        memcpy(s->best, candidate, len + 1);
        s->best_cost = cost;
    }
}

/* The walk's visitor: each zone file's name below the database. */
static void consider(void *ctx, const char *name)
{
    monostamp__near_consider(ctx, name);
}

int monostamp_zone_suggest(const char *name, char *buf, size_t size)
{
    search s;
    if (name == NULL || buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    buf[0] = '\0';
    monostamp__near_init(&s, name);
    if (s.name_len == 0 || s.name_len > MONOSTAMP_ZONE_NAME_MAX)
        return MONOSTAMP_ENOZONE;
    monostamp__near_consider(&s, "UTC");
    {
        char path[PATH_MAX];
        if (monostamp__zone_resolve_path(".", path, sizeof path) == 0) {
            path[strlen(path) - 2] = '\0'; /* without the "/." */
            monostamp__os_zone_walk(path, 3, skipped, "TZif", consider, &s);
        }
    }
    if (s.best_cost == INT_MAX || strcmp(s.best, name) == 0)
        return MONOSTAMP_ENOZONE;
    if (strlen(s.best) >= size)
        return MONOSTAMP_ERANGE;
    memcpy(buf, s.best, strlen(s.best) + 1);
    return MONOSTAMP_OK;
}
