/*
 * shared_check.h: what test_shared.c and test_shared_files.c both use: the
 * test's temporary directory (made by main), a path in it, a clock on a
 * state file there, and a file written whole.
 */
#ifndef MONOSTAMP_SHARED_CHECK_H
#define MONOSTAMP_SHARED_CHECK_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "monostamp.h"

/* Windows' open() translates line ends unless told not to. */
#ifndef O_BINARY
#define O_BINARY 0
#endif

static char dir[200];

/* dir/name, in one buffer that the next call overwrites. */
static inline const char *path_in_dir(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* A realtime clock in UTC on the state file `path`, under `policy`. */
static inline int open_shared_policy(monostamp_clock *clock, const char *path, int policy)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.policy = policy;
    o.shared_path = path;
    return monostamp_clock_init(clock, &o);
}

/* The same under the default policy. */
static inline int open_shared(monostamp_clock *clock, const char *path)
{
    monostamp_options o;
    monostamp_options_init(&o);
    return open_shared_policy(clock, path, o.policy);
}

/* Writes `size` bytes to `path`, made or truncated; aborts on a short write. */
static inline void write_file(const char *path, const void *bytes, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_BINARY, 0600);
    if (fd >= 0) {
        if (write(fd, bytes, size) != (ssize_t)size)
            abort();
        close(fd);
    }
}

#endif
