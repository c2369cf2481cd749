/*
 * vectors.h: reading the shared vectors in tests/vectors/ (found through
 * MONOSTAMP_VECTORS, else ./tests/vectors), for the C tests that check
 * them: tab-separated fields, '#' lines are comments.  A missing or empty
 * vector file fails the test that opens it (tests/c/test_vectors.c).
 */
#ifndef MONOSTAMP_VECTORS_H
#define MONOSTAMP_VECTORS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why the last open_vectors() failed, naming the file ("" if it did not). */
static char vectors_error[4400];

/* 1 if the stream holds a row: a line that is neither blank nor a '#'
 * comment.  Reads char by char, so no line is too long to judge. */
static int vectors_has_row(FILE *f)
{
    int c, at_start = 1, in_comment = 0;
    while ((c = getc(f)) != EOF) {
        if (c == '\n') {
            at_start = 1;
            in_comment = 0;
        } else if (at_start) {
            at_start = 0;
            if (c == '#') in_comment = 1;
            else if (c != '\r') return 1;
        } else if (!in_comment && c != '\r') {
            return 1;
        }
    }
    return 0;
}

/* Opens tests/vectors/<name>, positioned at its start.  A file that is
 * missing, or holds no row, is NULL, and the reason naming the file is
 * printed and kept in vectors_error: the shared vectors are part of the
 * suite, and a test that read none would pass having checked nothing. */
static FILE *open_vectors(const char *name)
{
    char path[4200];
    const char *dir = getenv("MONOSTAMP_VECTORS");
    FILE *f;
    vectors_error[0] = '\0';
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/vectors", name);
    f = fopen(path, "r");
    if (f == NULL) {
        snprintf(vectors_error, sizeof vectors_error, "shared vectors missing: %s (%s)", path,
                 strerror(errno));
    } else if (!vectors_has_row(f)) {
        snprintf(vectors_error, sizeof vectors_error, "shared vectors empty: %s holds no row",
                 path);
        fclose(f);
        f = NULL;
    } else {
        rewind(f);
    }
    if (f == NULL) fprintf(stderr, "  %s\n", vectors_error);
    return f;
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
