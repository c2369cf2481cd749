/*
 * state_file.c: the layout of a state file and the checks made before it
 * is trusted; the OS layer does the creating and mapping.
 *
 * A state file is 128 bytes: a header (magic, layout version, size) and,
 * on its own cache line, the state (state_file.h: LAST, then ANCHOR).
 * Processes of any language share it, so the layout is fixed by the
 * version number, not by this compiler.  The anchor came later, in bytes
 * that version 1 kept zero: a file an older library made reads "no anchor
 * yet" and gets one from the first clock that samples it, and an older
 * library on the same file goes on ignoring it, so the version stays 1.
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
    _Atomic int64_t state[MONOSTAMP__STATE_CELLS]; /* alone on their cache line */
    char padding[64 - MONOSTAMP__STATE_CELLS * sizeof(int64_t)];
};

_Static_assert(offsetof(struct state_file, state) == 64, "state file layout");
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
    int readable = monostamp__os_clock_read(MONOSTAMP_SOURCE_REALTIME, &now) == MONOSTAMP_OK;
    /* Above every stamp a process could have handed out within the lead
     * bound before now; a whole µs below now + bound, so that even a µs
     * stamp made at once stays within the creator's own bound.  A fresh
     * file, and one made while the wall clock is unreadable, starts at
     * "no stamp yet". */
    int64_t start = INT64_MIN;
    if (start_lead_ns != MONOSTAMP__STATE_FRESH) {
        if (start_lead_ns < 1000)
            start_lead_ns = 1000;
        if (readable && now >= 0 && now < INT64_MAX - start_lead_ns) {
            start = now + start_lead_ns;
            start -= start % 1000 + 1000;
        }
    }
    atomic_init(&initial.state[MONOSTAMP__STATE_LAST], start);
    atomic_init(&initial.state[MONOSTAMP__STATE_ANCHOR],
                readable ? monostamp__state_anchor_of(MONOSTAMP_SOURCE_REALTIME, now) : 0);

    rc = monostamp__os_map_place(place, &initial, sizeof initial, trust_group, &map, id);
    if (rc != MONOSTAMP_OK)
        return rc;
    if ((rc = check_header(map)) != MONOSTAMP_OK) {
        monostamp__os_unmap(map, sizeof initial);
        return rc;
    }
    *last_ns = &((struct state_file *)map)->state[MONOSTAMP__STATE_LAST];
    *mapping = map;
    *mapping_size = sizeof initial;
    return MONOSTAMP_OK;
}

int monostamp_state_file_create(const char *path, int trust_group)
{
    monostamp__os_place *place;
    monostamp__os_file_id id;
    _Atomic int64_t *cell;
    void *mapping;
    size_t size;

    if (path == NULL || path[0] == '\0' || (trust_group != 0 && trust_group != 1))
        return MONOSTAMP_EINVAL;
    int rc = monostamp__os_place_pin(path, &place);
    if (rc != MONOSTAMP_OK)
        return rc;
    /* The caller made the directory, so nothing should be there: a file
     * that is means the caller's premise is wrong, and starting it afresh
     * could repeat its stamps. */
    if (monostamp__os_place_id(place, &id) == MONOSTAMP_OK)
        rc = MONOSTAMP_EEXIST;
    else
        rc = monostamp__state_file_open(place, trust_group, MONOSTAMP__STATE_FRESH, &cell,
                                        &mapping, &size, &id);
    if (rc == MONOSTAMP_OK)
        monostamp__state_close(mapping, size);
    monostamp__os_place_free(place);
    return rc;
}

int monostamp__state_anonymous(_Atomic int64_t **last_ns, void **mapping,
                               size_t *mapping_size)
{
    size_t size = sizeof(struct state_file);
    void *map;
    int rc = monostamp__os_map_anonymous(size, &map);
    if (rc != MONOSTAMP_OK)
        return rc;
    *last_ns = &((struct state_file *)map)->state[MONOSTAMP__STATE_LAST];
    atomic_init(*last_ns, INT64_MIN);
    atomic_init(*last_ns + MONOSTAMP__STATE_ANCHOR, 0);
    *mapping = map;
    *mapping_size = size;
    return MONOSTAMP_OK;
}

void monostamp__state_close(void *mapping, size_t mapping_size)
{
    monostamp__os_unmap(mapping, mapping_size);
}
