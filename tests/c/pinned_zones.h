/*
 * pinned_zones.h: points TZDIR at tests/vectors/zoneinfo (under
 * MONOSTAMP_VECTORS if set), the TZif files the vectors and the offsets
 * written into the tests were computed from, so that a test of named zones
 * gives the same result whatever tzdata the machine has.  Tests against the
 * machine's own database (test_zone_all.c) must not call it.
 */
#ifndef MONOSTAMP_PINNED_ZONES_H
#define MONOSTAMP_PINNED_ZONES_H

#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* setenv on Windows */

/* 0, or -1 (with a message) if the pinned zones are not there. */
static inline int pin_zones(void)
{
    static char dir[4200];
    char probe[4300];
    const char *vectors = getenv("MONOSTAMP_VECTORS");
    FILE *f;
    snprintf(dir, sizeof dir, "%s/zoneinfo", vectors ? vectors : "tests/vectors");
    snprintf(probe, sizeof probe, "%s/README.md", dir);
    f = fopen(probe, "r");
    if (f == NULL) {
        fprintf(stderr, "pinned zones missing: cannot open %s\n", probe);
        return -1;
    }
    fclose(f);
    return setenv("TZDIR", dir, 1);
}

#endif
