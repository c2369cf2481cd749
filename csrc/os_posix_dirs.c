/*
 * os_posix_dirs.c: the OS layer's looks at directories on POSIX, for error
 * messages alone (os.h): the zone database walked for its names, and
 * whether a state file's directory is missing.  Off every hot path.
 */
#include "os.h"

#if !defined(_WIN32)

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 1 if the file at `path` starts with the four bytes `magic`. */
static int starts_with(const char *path, const char *magic)
{
    char head[4];
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == sizeof head && memcmp(head, magic, sizeof head) == 0;
}

typedef struct {
    const char *const *skipped;
    const char *magic;
    void (*visit)(void *ctx, const char *name);
    void *ctx;
    size_t root;  /* the root's length and its '/' */
} walk_args;

/* Visits the files under `path`, `used` bytes long, `depth` levels at most. */
static void walk(const walk_args *a, char *path, size_t used, int depth)
{
    DIR *dir = opendir(path);
    struct dirent *entry;
    if (dir == NULL)
        return;
    while ((entry = readdir(dir)) != NULL) {
        const char *n = entry->d_name;
        size_t len = strlen(n);
        struct stat st;
        int skip = 0;
        if (n[0] == '.' || used + 1 + len >= PATH_MAX)
            continue;
        for (int i = 0; used + 1 == a->root && a->skipped != NULL && a->skipped[i] != NULL; i++)
            skip |= strcmp(n, a->skipped[i]) == 0;
        if (skip)
            continue;
        path[used] = '/';
        memcpy(path + used + 1, n, len + 1);
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth > 0)
                walk(a, path, used + 1 + len, depth - 1);
            else if (S_ISREG(st.st_mode) && starts_with(path, a->magic))
                a->visit(a->ctx, path + a->root);
        }
        path[used] = '\0';
    }
    closedir(dir);
}

void monostamp__os_zone_walk(const char *root, int depth, const char *const *skipped,
                             const char *magic, void (*visit)(void *ctx, const char *name),
                             void *ctx)
{
    char path[PATH_MAX];
    size_t used = root != NULL ? strlen(root) : PATH_MAX;
    walk_args a = {skipped, magic, visit, ctx, used + 1};
    if (used == 0 || used >= PATH_MAX)
        return;
    memcpy(path, root, used + 1);
    walk(&a, path, used, depth);
}

int monostamp__os_dir_missing(const char *path)
{
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    if (slash == NULL || slash == path)
        return 0;
    size_t len = (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (dir == NULL)
        return 0;
    memcpy(dir, path, len);
    dir[len] = '\0';
    struct stat st;
    int missing = stat(dir, &st) != 0 ? errno == ENOENT || errno == ENOTDIR : !S_ISDIR(st.st_mode);
    free(dir);
    return missing;
}

#endif /* !_WIN32 */
