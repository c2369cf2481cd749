/* suggest.h: the nearest of some names to one the core refused, by edit
 * distance (zone_suggest.c): for the "did you mean" of a zone's name and of
 * an option's. */
#ifndef MONOSTAMP_SUGGEST_H
#define MONOSTAMP_SUGGEST_H

#include "config.h"

MONOSTAMP__HIDDEN_BEGIN

typedef struct monostamp__near {
    const char *name;   /* what was refused */
    size_t name_len;
    char best[MONOSTAMP_ZONE_NAME_MAX + 1];  /* the nearest so far, "" if none */
    int best_cost;      /* INT_MAX: none yet */
} monostamp__near;

/* Starts a search for the name nearest `name`. */
void monostamp__near_init(monostamp__near *s, const char *name);
/* Weighs `candidate`: kept if it is within a slip of the name (an edit for
 * every four characters, one at least, three at most; a city alone is one)
 * and nearer than the best so far, ties to the first in byte order. */
void monostamp__near_consider(monostamp__near *s, const char *candidate);

MONOSTAMP__HIDDEN_END

#endif
