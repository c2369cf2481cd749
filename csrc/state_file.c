/*
 * state_file.c: the layout of a state file and the checks made before it
 * is trusted; the OS layer does the creating and mapping.
 *
 * A state file is 128 bytes: a header (magic, layout version, size) and,
 * on its own cache line, the atomic.  Processes of any language share it,
 * so the layout is fixed by the version number, not by this compiler.
 */
#include "config.h"

#include <string.h>

#include "os.h"
#include "state_file.h"

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

static int check_header(const struct state_file *file)
{
    if (memcmp(file->magic, STATE_MAGIC, sizeof file->magic) != 0)
        return MONOSTAMP_EFOREIGN;
    if (file->version != STATE_VERSION || file->size != sizeof *file)
        return MONOSTAMP_EVERSION;
    return MONOSTAMP_OK;
}

int monostamp__state_file_open(const monostamp__os_place *place, int trust_group,
                               int64_t start_lead_ns, _Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size, monostamp__os_file_id *id)
{
    struct state_file initial;
    void *map;
    int rc;

    memset(&initial, 0, sizeof initial);
    memcpy(initial.magic, STATE_MAGIC, sizeof initial.magic);
    initial.version = STATE_VERSION;
    initial.size = sizeof initial;
    int64_t now = 0; /* set by the read; the 0 quiets -Wmaybe-uninitialized */
    /* Above every stamp a process could have handed out within the lead
     * bound before now; a whole µs below now + bound, so that even a µs
     * stamp made at once stays within the creator's own bound.  Should
     * the wall clock be unreadable, "no stamp yet" still works. */
    if (start_lead_ns < 1000)
        start_lead_ns = 1000;
    int64_t start = INT64_MIN;
    if (monostamp__os_clock_read(MONOSTAMP_SOURCE_REALTIME, &now) == MONOSTAMP_OK &&
        now >= 0 && now < INT64_MAX - start_lead_ns) {
        start = now + start_lead_ns;
        start -= start % 1000 + 1000;
    }
    atomic_init(&initial.last_ns, start);

    rc = monostamp__os_map_place(place, &initial, sizeof initial, trust_group, &map, id);
    if (rc != MONOSTAMP_OK)
        return rc;
    if ((rc = check_header(map)) != MONOSTAMP_OK) {
        monostamp__os_unmap(map, sizeof initial);
        return rc;
    }
    *last_ns = &((struct state_file *)map)->last_ns;
    *mapping = map;
    *mapping_size = sizeof initial;
    return MONOSTAMP_OK;
}

int monostamp__state_anonymous(_Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size)
{
    size_t size = sizeof(struct state_file);
    void *map;
    int rc = monostamp__os_map_anonymous(size, &map);
    if (rc != MONOSTAMP_OK)
        return rc;
    *last_ns = &((struct state_file *)map)->last_ns;
    atomic_init(*last_ns, INT64_MIN);
    *mapping = map;
    *mapping_size = size;
    return MONOSTAMP_OK;
}

void monostamp__state_close(void *mapping, size_t mapping_size)
{
    monostamp__os_unmap(mapping, mapping_size);
}
