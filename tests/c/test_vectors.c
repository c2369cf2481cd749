/*
 * test_vectors.c: the C tests' reader of the shared vectors (vectors.h)
 * refuses a vector file that is missing or holds no row, naming it, as
 * the Python and Lua readers do: a suite that read no vector would pass
 * having checked nothing.
 */
#include "check.h"
#include "vectors.h"

static char dir[512];

/* Writes `text` to <dir>/<name>; 0 or -1. */
static int write_file(const char *name, const char *text)
{
    char path[600];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL) return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* 1 if vectors_error names <dir>/<name>. */
static int error_names(const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return strstr(vectors_error, path) != NULL;
}

static void test_a_missing_file_fails_naming_it(void)
{
    FILE *f = open_vectors("missing.tsv");
    CHECK(f == NULL);
    CHECK(strstr(vectors_error, "shared vectors missing: ") == vectors_error);
    CHECK(error_names("missing.tsv"));
}

static void test_an_empty_file_fails_naming_it(void)
{
    FILE *f;
    CHECK_EQ(0, write_file("empty.tsv", ""));
    f = open_vectors("empty.tsv");
    CHECK(f == NULL);
    CHECK(strstr(vectors_error, "shared vectors empty: ") == vectors_error);
    CHECK(error_names("empty.tsv"));
}

static void test_comments_and_blank_lines_alone_are_empty(void)
{
    FILE *f;
    CHECK_EQ(0, write_file("comments.tsv", "# a header\n\n\r\n# and a note\n"));
    f = open_vectors("comments.tsv");
    CHECK(f == NULL);
    CHECK(error_names("comments.tsv"));
}

static void test_a_row_is_read_from_the_start(void)
{
    char line[64], *fields[3];
    FILE *f;
    CHECK_EQ(0, write_file("row.tsv", "# a header\n1\ttwo\n"));
    f = open_vectors("row.tsv");
    CHECK(f != NULL);
    CHECK_STR_EQ(vectors_error, "");
    CHECK(fgets(line, sizeof line, f) != NULL);
    CHECK_STR_EQ(line, "# a header\n");
    CHECK(fgets(line, sizeof line, f) != NULL);
    fclose(f);
    CHECK_EQ(split(line, fields, 3), 2);
    CHECK_STR_EQ(fields[1], "two");
}

int main(void)
{
    if (check_make_temp_dir(dir, sizeof dir, "monostamp-vectors") != 0) {
        fprintf(stderr, "test_vectors: no temporary directory\n");
        return 1;
    }
    setenv("MONOSTAMP_VECTORS", dir, 1);
    printf("  (the lines \"shared vectors missing/empty\" below are the refusals under test)\n");
    fflush(stdout);
    RUN(test_a_missing_file_fails_naming_it);
    RUN(test_an_empty_file_fails_naming_it);
    RUN(test_comments_and_blank_lines_alone_are_empty);
    RUN(test_a_row_is_read_from_the_start);
    check_remove_tree(dir);
    return check_summary();
}
