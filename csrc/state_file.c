/*
 * state_file.c: the layout of a state file and the checks made before it
 * is trusted; the OS layer does the creating and mapping.
 *
 * A state file is 128 bytes: a header (magic, layout version, size, then
 * the counts: state_file.h) and, on its own cache line, the state
 * (state_file.h: LAST, then ANCHOR).
 * Processes of any language share it, so the layout is fixed by the
 * version number, not by this compiler.  The anchor came later, in bytes
 * that version 1 kept zero: a file an older library made reads "no anchor
 * yet" and gets one from the first clock that samples it, and an older
 * library on the same file goes on ignoring it, so the version stays 1.
 * So did the counts, in the header's reserved bytes: the size and the
 * version are unchanged, and a file of any other size or version is still
 * refused (EFOREIGN, EVERSION) rather than read at the wrong offsets.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "state_file.h"

#define STATE_MAGIC "monostmp"
#define STATE_VERSION 1u

struct state_file {
    char magic[8];
    uint32_t version;
    uint32_t size;
    /* Written at checkpoints and exits only, never beside LAST. */
    _Atomic uint64_t counts[MONOSTAMP__COUNT_CELLS];
    char reserved[48 - MONOSTAMP__COUNT_CELLS * sizeof(uint64_t)];
    _Atomic int64_t state[MONOSTAMP__STATE_FILE_CELLS]; /* alone on their cache line */
    char padding[64 - MONOSTAMP__STATE_FILE_CELLS * sizeof(int64_t)];
};

_Static_assert(offsetof(struct state_file, state) == 64, "state file layout");
_Static_assert(sizeof(struct state_file) == 128, "state file layout");
_Static_assert(offsetof(struct state_file, counts) == 16, "state file layout");

_Atomic uint64_t *monostamp__state_counts(void *mapping)
{
    return ((struct state_file *)mapping)->counts;
}

static int check_header(const struct state_file *file)
{
    if (memcmp(file->magic, STATE_MAGIC, sizeof file->magic) != 0)
        return MONOSTAMP_EFOREIGN;
    if (file->version != STATE_VERSION || file->size != sizeof *file)
        return MONOSTAMP_EVERSION;
    return MONOSTAMP_OK;
}

int monostamp__state_file_open(const monostamp__os_place *place, int trust_group,
                               int64_t start_lead_ns, const monostamp__os_file_id *repair,
                               _Atomic int64_t **last_ns, void **mapping, size_t *mapping_size,
                               monostamp__os_file_id *id)
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
    atomic_init(&initial.state[MONOSTAMP__STATE_NEXT_DEV], 0);
    atomic_init(&initial.state[MONOSTAMP__STATE_NEXT_INO], 0);

    rc = monostamp__os_map_place(place, &initial, sizeof initial, trust_group, repair, &map, id);
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

int monostamp__state_guard(void *mapping, size_t mapping_size)
{
    /* What a truncated file's page turns into: a state file whose state
     * is retired, naming no successor. */
    struct state_file tombstone;
    memset(&tombstone, 0, sizeof tombstone);
    memcpy(tombstone.magic, STATE_MAGIC, sizeof tombstone.magic);
    tombstone.version = STATE_VERSION;
    tombstone.size = sizeof tombstone;
    atomic_init(&tombstone.state[MONOSTAMP__STATE_LAST], MONOSTAMP__STATE_RETIRED);
    if (mapping_size != sizeof tombstone)
        return MONOSTAMP_EINVAL;
    return monostamp__os_guard(mapping, mapping_size, &tombstone);
}

/* The successor's identity in two cells; dev is written last and read
 * first, so whoever sees it sees the inode and the raise made before. */
void monostamp__state_name_successor(_Atomic int64_t *last, const monostamp__os_file_id *next)
{
    atomic_store_explicit(last + MONOSTAMP__STATE_NEXT_INO, (int64_t)next->ino,
                          memory_order_release);
    atomic_store_explicit(last + MONOSTAMP__STATE_NEXT_DEV, (int64_t)next->dev,
                          memory_order_release);
}

int monostamp__state_successor_is(_Atomic int64_t *last, const monostamp__os_file_id *file)
{
    int64_t dev = atomic_load_explicit(last + MONOSTAMP__STATE_NEXT_DEV, memory_order_acquire);
    int64_t ino = atomic_load_explicit(last + MONOSTAMP__STATE_NEXT_INO, memory_order_acquire);
    return (dev != 0 || ino != 0) && (uint64_t)dev == file->dev && (uint64_t)ino == file->ino;
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
        rc = monostamp__state_file_open(place, trust_group, MONOSTAMP__STATE_FRESH, NULL, &cell,
                                        &mapping, &size, &id);
    if (rc == MONOSTAMP_OK)
        monostamp__state_close(mapping, size);
    monostamp__os_place_free(place);
    return rc;
}

/* A copy of the state file at `path`, read by read() (not mapped, not
 * created), its header checked: MONOSTAMP_OK, or the error. */
static int read_state_file(const char *path, struct state_file *file)
{
    unsigned char *bytes;
    size_t len;
    int rc = monostamp__os_read_file(path, sizeof *file, &bytes, &len, NULL);
    if (rc != MONOSTAMP_OK)
        return rc;
    if (len != sizeof *file) {
        free(bytes);
        return MONOSTAMP_EFOREIGN;
    }
    memcpy(file, bytes, sizeof *file);
    free(bytes);
    return check_header(file);
}

int monostamp_state_file_info(const char *path, monostamp_state_info *out)
{
    struct state_file file;
    if (path == NULL || path[0] == '\0' || out == NULL)
        return MONOSTAMP_EINVAL;
    int rc = read_state_file(path, &file);
    if (rc != MONOSTAMP_OK)
        return rc;
    /* A copy of the bytes, read by read(): plain loads of a private copy. */
    out->last_ns = atomic_load_explicit(&file.state[MONOSTAMP__STATE_LAST], memory_order_relaxed);
    out->max_lead_ns =
        atomic_load_explicit(&file.state[MONOSTAMP__STATE_BOUND], memory_order_relaxed);
    out->joins = atomic_load_explicit(&file.state[MONOSTAMP__STATE_JOINS], memory_order_relaxed);
    return MONOSTAMP_OK;
}

int monostamp_state_file_counts(const char *path, monostamp_counts *out)
{
    struct state_file file;
    if (path == NULL || path[0] == '\0' || out == NULL)
        return MONOSTAMP_EINVAL;
    int rc = read_state_file(path, &file);
    if (rc != MONOSTAMP_OK)
        return rc;
    /* Any writer's numbers: unsigned, so nothing here can overflow; the
     * lead is given as an int64_t, so one past INT64_MAX is capped. */
    out->stamps = atomic_load_explicit(&file.counts[MONOSTAMP__COUNT_STAMPS], memory_order_relaxed);
    out->repeats =
        atomic_load_explicit(&file.counts[MONOSTAMP__COUNT_REPEATS], memory_order_relaxed);
    out->backward_steps =
        atomic_load_explicit(&file.counts[MONOSTAMP__COUNT_BACKWARD], memory_order_relaxed);
    uint64_t lead = atomic_load_explicit(&file.counts[MONOSTAMP__COUNT_LEAD], memory_order_relaxed);
    out->largest_lead_ns = lead > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)lead;
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
