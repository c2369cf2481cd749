/*
 * os_windows_dirs.c: the OS layer's looks at directories on Windows, for
 * error messages alone (os.h).  Windows has no zone database to walk, and
 * its own sentence for a missing directory (ERROR_PATH_NOT_FOUND) already
 * says what the POSIX hint adds, so both are empty here; a runner's
 * directory is named by its pid alone, and none is swept.
 */
#include "os.h"

#if defined(_WIN32)

#include <stdio.h>
#include <windows.h>

#include "monostamp_host.h"

void monostamp__os_zone_walk(const char *root, int depth, const char *const *skipped,
                             const char *magic, void (*visit)(void *ctx, const char *name),
                             void *ctx)
{
    (void)root, (void)depth, (void)skipped, (void)magic, (void)visit, (void)ctx;
}

int monostamp__os_dir_missing(const char *path)
{
    (void)path;
    return 0;
}

/* No /proc: a runner's directory is named by its pid alone, and a pid
 * cannot be asked whether it lives without opening the process, so the
 * sweep removes none (monostamp_host.h). */
int monostamp_run_dir_prefix(char *buf, size_t size)
{
    int n;
    if (buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    n = snprintf(buf, size, "%s%lu-", MONOSTAMP_RUN_DIR_PREFIX,
                 (unsigned long)GetCurrentProcessId());
    return n < 0 || (size_t)n >= size ? MONOSTAMP_ERANGE : n;
}

int monostamp_run_dirs_sweep(const char *parent)
{
    return parent == NULL || parent[0] == '\0' ? MONOSTAMP_EINVAL : 0;
}

#endif /* _WIN32 */
