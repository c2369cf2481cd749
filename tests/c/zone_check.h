/*
 * zone_check.h: what test_zone.c and test_zone_input.c both use: instants
 * of 2026, the zone folder (TZDIR, pointed at the pinned copy by
 * pin_zones()), a zone's offset at a second, and zone files read whole
 * and written whole.
 */
#ifndef MONOSTAMP_ZONE_CHECK_H
#define MONOSTAMP_ZONE_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "monostamp.h"

#define NS INT64_C(1000000000)
#define JAN_2026 INT64_C(1767225600)
#define JUL_2026 INT64_C(1782864000)

static inline const char *zoneinfo(void)
{
    const char *d = getenv("TZDIR");
    return d != NULL && d[0] != '\0' ? d : "/usr/share/zoneinfo";
}

/* The offset of `zone` at second t (ns are checked too, at t - 1 ns). */
static inline int32_t off_at(monostamp_zone *z, int64_t t)
{
    int32_t off = INT32_MIN;
    if (monostamp_zone_offset(z, t * NS, &off) != 0) return INT32_MIN;
    return off;
}

/* Writes `len` bytes to dir/name. */
static inline int write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[4200];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL) return -1;
    if (len > 0 && fwrite(data, 1, len, f) != len) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

/* The zone file `name` under zoneinfo(), whole (up to 64 KiB), malloc'd;
 * NULL if there is none. */
static inline unsigned char *read_zone(const char *name, size_t *len)
{
    char path[4200];
    FILE *f;
    unsigned char *buf = malloc(1 << 16);
    snprintf(path, sizeof path, "%s/%s", zoneinfo(), name);
    f = fopen(path, "rb");
    if (f == NULL || buf == NULL) {
        if (f) fclose(f);
        free(buf);
        return NULL;
    }
    *len = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

#endif
