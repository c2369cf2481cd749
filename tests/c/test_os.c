/* test_os.c: the OS layer (csrc/os.h) on its own: what each call returns,
 * and that failures come back as codes carrying their errno. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "os.h"

#if defined(_WIN32)
/* EOS codes carry Windows errors there: a missing file, a missing
 * directory on the way to one. */
#define NOT_FOUND ERROR_FILE_NOT_FOUND
#define NO_DIRECTORY ERROR_PATH_NOT_FOUND
#else
#define NOT_FOUND ENOENT
#define NO_DIRECTORY ENOENT
#endif

static char dir[200];

static const char *path_in_dir(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_random_bytes_differ(void)
{
    unsigned char a[64], b[64], zero[64] = {0};
    CHECK_OK(monostamp__os_random(a, sizeof a));
    CHECK_OK(monostamp__os_random(b, sizeof b));
    CHECK(memcmp(a, b, sizeof a) != 0);
    CHECK(memcmp(a, zero, sizeof a) != 0);
    CHECK_OK(monostamp__os_random(a, 0));
}

static void test_read_file_and_its_id(void)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    monostamp__os_file_id id, again;
    const char *path = path_in_dir("data");

    write_file(path, "hello");
    CHECK_OK(monostamp__os_read_file(path, 1024, &buf, &len, &id));
    CHECK_EQ(len, 5);
    CHECK(memcmp(buf, "hello", 5) == 0);
    free(buf);
    CHECK_EQ(id.size, 5);
    CHECK_OK(monostamp__os_file_id_get(path, &again));
    CHECK_EQ(again.ino, id.ino);
    CHECK_EQ(again.mtime_ns, id.mtime_ns);
    /* A rewrite in place changes the id (size here). */
    write_file(path, "hello, world");
    CHECK_OK(monostamp__os_file_id_get(path, &again));
    CHECK_EQ(again.size, 12);

    CHECK_RC(monostamp__os_read_file(path, 4, &buf, &len, NULL), MONOSTAMP_EFOREIGN);
    CHECK_RC(monostamp__os_read_file(dir, 1024, &buf, &len, NULL), MONOSTAMP_EFOREIGN);
    int rc = monostamp__os_read_file(path_in_dir("absent"), 1024, &buf, &len, NULL);
    CHECK_RC(rc, MONOSTAMP_EOS(NOT_FOUND));
    CHECK_RC(monostamp__os_file_id_get(path_in_dir("absent"), &id), MONOSTAMP_EOS(NOT_FOUND));
}

static void test_map_file_creates_complete(void)
{
    const char initial[16] = "0123456789abcde";
    void *map = NULL;
    const char *path = path_in_dir("mapped");
    struct stat st;

    monostamp__os_file_id id, id_again;
    CHECK_OK(monostamp__os_map_file(path, initial, sizeof initial, 0, &map, &id));
    CHECK(memcmp(map, initial, sizeof initial) == 0);
    CHECK_EQ(stat(path, &st), 0);
    CHECK_EQ(st.st_size, 16);
#if defined(_WIN32)
    CHECK(check_file_is_private(path));
    {
        char other[300]; /* path_in_dir's buffer holds `path` */
        snprintf(other, sizeof other, "%s/by-fopen", dir);
        write_file(other, "x");
        CHECK(!check_file_is_private(other)); /* the check can fail */
    }
#else
    CHECK_EQ(st.st_mode & 0777, 0600);
#endif
    /* A second mapping sees the first one's writes: it is the file. */
    void *again = NULL;
    CHECK_OK(monostamp__os_map_file(path, "ignored: exists", sizeof initial, 0, &again, &id_again));
    /* Both name the one file. */
    CHECK_EQ(id.ino, id_again.ino);
    CHECK_EQ(id.dev, id_again.dev);
    ((char *)map)[0] = 'X';
    CHECK_EQ(((char *)again)[0], 'X');
    monostamp__os_unmap(map, sizeof initial);
    monostamp__os_unmap(again, sizeof initial);

    write_file(path_in_dir("short"), "abc");
    CHECK_RC(monostamp__os_map_file(path_in_dir("short"), initial, sizeof initial, 0, &map, &id),
             MONOSTAMP_EFOREIGN);
    /* A directory: refused as no regular file (O_NONBLOCK lets it open). */
    int rc = monostamp__os_map_file(dir, initial, sizeof initial, 0, &map, &id);
    CHECK(rc == MONOSTAMP_EOS(EISDIR) || rc == MONOSTAMP_EFOREIGN);
    CHECK_RC(monostamp__os_map_file(path_in_dir("no/dir/x"), initial, sizeof initial, 0, &map, &id),
             MONOSTAMP_EOS(NO_DIRECTORY));
}

static void test_memory_and_locks(void)
{
    void *p = monostamp__os_aligned_alloc(64, 100);
    CHECK(p != NULL);
    CHECK_EQ((uintptr_t)p % 64, 0);
    monostamp__os_aligned_free(p);

    monostamp__os_mutex m = MONOSTAMP__OS_MUTEX_INIT;
    CHECK_EQ(monostamp__os_mutex_trylock(&m), 1);
    monostamp__os_mutex_unlock(&m);

    void *anon = NULL;
    CHECK_OK(monostamp__os_map_anonymous(4096, &anon));
    CHECK_EQ(((unsigned char *)anon)[4095], 0);
    monostamp__os_unmap(anon, 4096);
}

static void test_clocks_and_zone(void)
{
    int64_t a = monostamp__os_monotonic_ns(), b = monostamp__os_monotonic_ns();
    CHECK_GT(a, 0);
    CHECK_GE(b, a);
    int64_t wall;
    CHECK_OK(monostamp__os_clock_read(MONOSTAMP_SOURCE_REALTIME_COARSE, &wall));
    CHECK_GT(wall, INT64_C(1700000000) * MONOSTAMP__NS_PER_S); /* after 2023 */

    /* The C library's view of a fixed zone. */
    int32_t off = 12345;
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    monostamp__os_local_zone_reset();
    CHECK_EQ(monostamp__os_local_offset(0, &off), 0);
    CHECK_EQ(off, 3600);
    CHECK_EQ(monostamp__os_local_offset(INT64_C(1782000000), &off), 0); /* June 2026 */
    CHECK_EQ(off, 7200);
    unsetenv("TZ");
    monostamp__os_local_zone_reset();
}

int main(void)
{
    if (check_make_temp_dir(dir, sizeof dir, "monostamp-os") != 0)
        return 1;
    RUN(test_random_bytes_differ);
    RUN(test_read_file_and_its_id);
    RUN(test_map_file_creates_complete);
    RUN(test_memory_and_locks);
    RUN(test_clocks_and_zone);
    const char *names[] = {"data", "mapped", "short", "by-fopen"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(path_in_dir(names[i]));
    rmdir(dir);
    return check_summary();
}
