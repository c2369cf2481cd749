/*
 * os_windows_dirs.c: the OS layer's looks at directories on Windows, for
 * error messages alone (os.h).  Windows has no zone database to walk, and
 * its own sentence for a missing directory (ERROR_PATH_NOT_FOUND) already
 * says what the POSIX hint adds, so both are empty here.
 */
#include "os.h"

#if defined(_WIN32)

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

#endif /* _WIN32 */
