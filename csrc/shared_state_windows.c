/* shared_state_windows.c: XXX: state files are not written for Windows yet;
 * clocks there keep private state and refuse shared_path. */
#if defined(_WIN32)

#include <stdlib.h>

#include "clock_internal.h"

int monostamp__shared_open(const char *path, _Atomic int64_t **last_ns,
                           void **mapping, size_t *mapping_size)
{
    (void)path, (void)last_ns, (void)mapping, (void)mapping_size;
    return MONOSTAMP_ENOTSUP;
}

/* Windows has no fork(): process-private memory serves. */
int monostamp__shared_anonymous(_Atomic int64_t **last_ns, void **mapping,
                                size_t *mapping_size)
{
    _Atomic int64_t *cell = malloc(sizeof *cell);
    if (cell == NULL)
        return MONOSTAMP_ENOMEM;
    atomic_init(cell, INT64_MIN);
    *last_ns = cell;
    *mapping = cell;
    *mapping_size = sizeof *cell;
    return MONOSTAMP_OK;
}

void monostamp__shared_close(void *mapping, size_t mapping_size)
{
    (void)mapping_size;
    free(mapping);
}

#endif /* _WIN32 */
