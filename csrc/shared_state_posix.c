/*
 * shared_state_posix.c: the "last value" atomic in memory other processes
 * see: an anonymous MAP_SHARED page (shared with fork() children) or a
 * state file that unrelated processes map.
 *
 * A state file is 128 bytes: a header (magic, layout version, size) and,
 * on its own cache line, the atomic.  It is created complete under a
 * temporary name and linked into place, so no process ever maps a
 * half-written file, and two creators cannot both win.
 */
#if !defined(_WIN32)

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock_internal.h"

#define STATE_MAGIC "monostmp"
#define STATE_VERSION 1u

struct state_file {
    char magic[8];
    uint32_t version;
    uint32_t size;
    char reserved[48];
    _Atomic int64_t last_ns; /* alone on its cache line */
    char padding[56];
};

_Static_assert(offsetof(struct state_file, last_ns) == 64, "state file layout");
_Static_assert(sizeof(struct state_file) == 128, "state file layout");
/* Processes share the atomic only if it is lock-free (address-free). */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

/* Returns `rc`, keeping errno as the failing call left it. */
static int fail_closing(int fd, int rc)
{
    int saved = errno;
    if (fd >= 0)
        close(fd);
    errno = saved;
    return rc;
}

/* Makes the file complete under a temporary name, then links it to `path`.
 * Success also when another process linked its own first (EEXIST). */
static int create_state_file(const char *path)
{
    struct state_file initial;
    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".XXXXXX");
    int fd, rc = MONOSTAMP_OK;

    if (tmp == NULL)
        return MONOSTAMP_ENOMEM;
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".XXXXXX", sizeof ".XXXXXX");
    fd = mkstemp(tmp); /* mode 0600 */
    if (fd < 0) {
        free(tmp);
        return MONOSTAMP_ESYSTEM;
    }
    memset(&initial, 0, sizeof initial);
    memcpy(initial.magic, STATE_MAGIC, sizeof initial.magic);
    initial.version = STATE_VERSION;
    initial.size = sizeof initial;
    atomic_init(&initial.last_ns, INT64_MIN);
    if (pwrite(fd, &initial, sizeof initial, 0) != (ssize_t)sizeof initial ||
        (link(tmp, path) != 0 && errno != EEXIST))
        rc = MONOSTAMP_ESYSTEM;
    int saved = errno;
    unlink(tmp);
    close(fd);
    free(tmp);
    errno = saved;
    return rc;
}

static int check_header(int fd)
{
    struct stat st;
    struct state_file header;

    if (fstat(fd, &st) != 0)
        return MONOSTAMP_ESYSTEM;
    if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof header)
        return MONOSTAMP_EFOREIGN;
    if (pread(fd, &header, offsetof(struct state_file, last_ns), 0) !=
        (ssize_t)offsetof(struct state_file, last_ns))
        return MONOSTAMP_ESYSTEM;
    if (memcmp(header.magic, STATE_MAGIC, sizeof header.magic) != 0)
        return MONOSTAMP_EFOREIGN;
    if (header.version != STATE_VERSION || header.size != sizeof header)
        return MONOSTAMP_EVERSION;
    return MONOSTAMP_OK;
}

int monostamp__shared_open(const char *path, _Atomic int64_t **last_ns,
                           void **mapping, size_t *mapping_size)
{
    int fd, rc;

    if (path == NULL || path[0] == '\0')
        return MONOSTAMP_EINVAL;
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if ((rc = create_state_file(path)) != MONOSTAMP_OK)
            return rc;
        fd = open(path, O_RDWR | O_CLOEXEC);
    }
    if (fd < 0)
        return MONOSTAMP_ESYSTEM;
    if ((rc = check_header(fd)) != MONOSTAMP_OK)
        return fail_closing(fd, rc);
    void *map = mmap(NULL, sizeof(struct state_file), PROT_READ | PROT_WRITE,
                     MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return fail_closing(fd, MONOSTAMP_ESYSTEM);
    close(fd);
    *last_ns = &((struct state_file *)map)->last_ns;
    *mapping = map;
    *mapping_size = sizeof(struct state_file);
    return MONOSTAMP_OK;
}

int monostamp__shared_anonymous(_Atomic int64_t **last_ns, void **mapping,
                                size_t *mapping_size)
{
    size_t size = sizeof(struct state_file);
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return MONOSTAMP_ESYSTEM;
    *last_ns = &((struct state_file *)map)->last_ns;
    atomic_init(*last_ns, INT64_MIN);
    *mapping = map;
    *mapping_size = size;
    return MONOSTAMP_OK;
}

void monostamp__shared_close(void *mapping, size_t mapping_size)
{
    munmap(mapping, mapping_size);
}

#endif /* !_WIN32 */
