/*
 * os_posix_dirs.c: the OS layer's looks at directories on POSIX, for error
 * messages (os.h): the zone database walked for its names, and whether a
 * state file's directory is missing; and a runner's private directories
 * (monostamp_host.h: their names, and the sweep of those whose runner is
 * gone).  Off every hot path.
 */
#include "os.h"

#include "monostamp_host.h"

#if !defined(_WIN32)

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ------------------------------------------ a runner's private directories */

/* Linux: when process `pid` started, in clock ticks since boot, or -1 if
 * there is none (a zombie is none: it runs nothing any more) or no /proc. */
static long long start_ticks(long long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t got = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[got] = '\0';
    /* The name in parentheses may hold spaces and ')': the fields follow
     * the last ')', the state first (the 3rd field), the start time 22nd. */
    const char *p = strrchr(line, ')');
    if (p == NULL || p[1] != ' ' || p[2] == 'Z')
        return -1;
    p += 2;
    for (int field = 3; field < 22 && p != NULL; field++)
        p = (p = strchr(p, ' ')) != NULL ? p + 1 : NULL;
    if (p == NULL || *p < '0' || *p > '9')
        return -1;
    return strtoll(p, NULL, 10);
}

/* Linux: the number of this process's pid namespace, or -1. */
static long long pid_namespace(void)
{
    char link[64];
    ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1); /* "pid:[4026531836]" */
    if (n <= 0)
        return -1;
    link[n] = '\0';
    const char *open = strchr(link, '[');
    char *end;
    if (open == NULL || open[1] < '0' || open[1] > '9')
        return -1;
    long long number = strtoll(open + 1, &end, 10);
    return *end == ']' ? number : -1;
}

int monostamp_run_dir_prefix(char *buf, size_t size)
{
    long long pid = (long long)getpid(), start = start_ticks(pid), ns = pid_namespace();
    int n;
    if (buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    if (start < 0 || ns < 0)
        n = snprintf(buf, size, "%s%lld-", MONOSTAMP_RUN_DIR_PREFIX, pid);
    else
        n = snprintf(buf, size, "%s%lld-%lld-%lld-", MONOSTAMP_RUN_DIR_PREFIX, pid, start, ns);
    return n < 0 || (size_t)n >= size ? MONOSTAMP_ERANGE : n;
}

/* Reads a runner's directory name: 1 with the pid in v[0] and, named on
 * Linux, the start time and namespace in v[1], v[2] (else -1); 0 for any
 * other name.  The random part that ends it is not empty and has no '-'. */
static int run_dir_name(const char *name, long long v[3])
{
    size_t len = strlen(MONOSTAMP_RUN_DIR_PREFIX);
    const char *p = name + len;
    int n = 0;
    if (strncmp(name, MONOSTAMP_RUN_DIR_PREFIX, len) != 0)
        return 0;
    while (n < 3 && *p >= '0' && *p <= '9') {
        char *end;
        long long number = strtoll(p, &end, 10);
        if (*end != '-')
            break;
        v[n++] = number;
        p = end + 1;
    }
    if (n == 1)
        v[1] = v[2] = -1;
    return (n == 1 || n == 3) && *p != '\0' && strchr(p, '-') == NULL;
}

/* 1 only if the runner a directory names has surely ended. */
static int runner_gone(const long long v[3])
{
    int have_proc = start_ticks((long long)getpid()) >= 0;
    if (v[0] <= 0 || v[0] > INT_MAX)
        return 0;
    if (v[1] >= 0) /* named on Linux: gone if no process of that pid started then */
        return have_proc && v[2] == pid_namespace() && start_ticks(v[0]) != v[1];
    if (have_proc)
        return 0; /* named without a start time, on a system that has them: not ours to judge */
    return kill((pid_t)v[0], 0) != 0 && errno == ESRCH; /* EPERM: alive, another user's */
}

/* Removes the directory `path`, `depth` levels of directories in it at
 * most, and the files in them: 0, or -1 if the directory stays. */
static int remove_tree(const char *path, int depth)
{
    DIR *dir = opendir(path);
    struct dirent *entry;
    if (dir != NULL) {
        while ((entry = readdir(dir)) != NULL) {
            char inner[PATH_MAX];
            struct stat st;
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0 ||
                (size_t)snprintf(inner, sizeof inner, "%s/%s", path, entry->d_name) >=
                    sizeof inner)
                continue;
            if (lstat(inner, &st) == 0 && S_ISDIR(st.st_mode) && depth > 0)
                (void)remove_tree(inner, depth - 1);
            else
                (void)unlink(inner);
        }
        closedir(dir);
    }
    return rmdir(path) == 0 ? 0 : -1;
}

int monostamp_run_dirs_sweep(const char *parent)
{
    DIR *dir;
    struct dirent *entry;
    int removed = 0;
    if (parent == NULL || parent[0] == '\0')
        return MONOSTAMP_EINVAL;
    if ((dir = opendir(parent)) == NULL)
        return 0;
    while ((entry = readdir(dir)) != NULL) {
        char path[PATH_MAX];
        struct stat st;
        long long v[3];
        if (!run_dir_name(entry->d_name, v) ||
            (size_t)snprintf(path, sizeof path, "%s/%s", parent, entry->d_name) >= sizeof path)
            continue;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue;
        if (runner_gone(v) && remove_tree(path, 4) == 0 && removed < INT_MAX)
            removed++;
    }
    closedir(dir);
    return removed;
}

#endif /* !_WIN32 */
