/*
 * vectors.h: reading the shared vectors in tests/vectors/ (found through
 * MONOSTAMP_VECTORS, else ./tests/vectors), for the C tests that check
 * them: tab-separated fields, '#' lines are comments.
 */
#ifndef MONOSTAMP_VECTORS_H
#define MONOSTAMP_VECTORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *open_vectors(const char *name)
{
    char path[4200];
    const char *dir = getenv("MONOSTAMP_VECTORS");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/vectors", name);
    return fopen(path, "r");
}

/* Splits a line at TABs in place; returns the number of fields. */
static int split(char *line, char **fields, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    fields[n++] = line;
    for (char *p = line; *p != '\0' && n < max; p++) {
        if (*p == '\t') {
            *p = '\0';
            fields[n++] = p + 1;
        }
    }
    return n;
}

#endif
