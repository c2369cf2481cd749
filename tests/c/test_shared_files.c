/* test_shared_files.c: the state file itself: a new one is made private
 * (or for the group, with trust_group), with nothing left behind; files
 * that are not ours are refused: foreign, short, of another version, or
 * one another user could write (group or others, a symbolic link, another
 * owner); system errors carry errno; and a file truncated under a clock is
 * fatal as documented.  test_shared.c has clocks sharing a sequence. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if !defined(_WIN32)
#include <sys/wait.h>
#endif

#include "check.h"
#include "monostamp.h"
#include "shared_check.h"

static void test_new_file_is_created_private(void)
{
    const char *path = path_in_dir("new.state");
    monostamp_clock c;
    struct stat st;
    CHECK_OK(open_shared(&c, path));
    CHECK_EQ(monostamp_clock_is_shared(&c), 1);
    CHECK_EQ(stat(path, &st), 0);
#if defined(_WIN32)
    CHECK(check_file_is_private(path)); /* Windows' 0600: the user's ACE alone */
#else
    CHECK_EQ(st.st_mode & 0777, 0600);
#endif
    CHECK_EQ(st.st_size, 128);
    int64_t a, b;
    CHECK_OK(monostamp_time_ns(&c, &a));
    monostamp_clock_destroy(&c);
    /* A second clock on the file continues the sequence. */
    CHECK_OK(open_shared(&c, path));
    CHECK_OK(monostamp_time_ns(&c, &b));
    CHECK_GT(b, a);
    monostamp_clock_destroy(&c);
}

static int open_trusting_group(monostamp_clock *clock, const char *path)
{
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    o.trust_group = 1;
    return monostamp_clock_init(clock, &o);
}

#if defined(_WIN32)
/* The Windows versions of the tests below that chmod or truncate. */
#include "shared_files_windows.h"
#endif

static void test_foreign_short_and_other_version_files_are_refused(void)
{
    monostamp_clock c;
    char bytes[128];

    memset(bytes, 'x', sizeof bytes);
    write_file(path_in_dir("foreign"), bytes, sizeof bytes);
    CHECK_RC(open_shared(&c, path_in_dir("foreign")), MONOSTAMP_EFOREIGN);

    write_file(path_in_dir("empty"), bytes, 0);
    CHECK_RC(open_shared(&c, path_in_dir("empty")), MONOSTAMP_EFOREIGN);

    /* A real state file cut short. */
    CHECK_OK(open_shared(&c, path_in_dir("real")));
    monostamp_clock_destroy(&c);
    int fd = open(path_in_dir("real"), O_RDONLY | O_BINARY);
    CHECK(fd >= 0);
    CHECK_EQ(read(fd, bytes, sizeof bytes), 128);
    close(fd);
    write_file(path_in_dir("short"), bytes, 100);
    CHECK_RC(open_shared(&c, path_in_dir("short")), MONOSTAMP_EFOREIGN);

    /* The same header with another version number. */
    bytes[8] = 99;
    write_file(path_in_dir("v99"), bytes, sizeof bytes);
    CHECK_RC(open_shared(&c, path_in_dir("v99")), MONOSTAMP_EVERSION);
    /* None of these files was changed by the refusal. */
    struct stat st;
    CHECK_EQ(stat(path_in_dir("foreign"), &st), 0);
    CHECK_EQ(st.st_size, 128);
    CHECK_EQ(stat(path_in_dir("empty"), &st), 0);
    CHECK_EQ(st.st_size, 0);
}

static void test_system_errors_carry_errno(void)
{
    monostamp_clock c;
    /* The cause is inside the code; errno is nobody's message. */
    errno = 0;
    int rc = open_shared(&c, path_in_dir("no/such/dir/state"));
#if defined(_WIN32)
    /* Windows' own error, and its own message for it. */
    CHECK_RC(rc, MONOSTAMP_EOS(ERROR_PATH_NOT_FOUND));
    CHECK_EQ(monostamp_os_errno(rc), ERROR_PATH_NOT_FOUND);
    CHECK(strlen(monostamp_strerror(rc)) > 0);
    CHECK(strcmp(monostamp_strerror(rc), "unknown system error") != 0);
    /* A directory: no state file (Windows will not open it for writing). */
    CHECK_RC(open_shared(&c, dir), MONOSTAMP_EFOREIGN);
#else
    CHECK_RC(rc, MONOSTAMP_EOS(ENOENT));
    CHECK_EQ(monostamp_os_errno(rc), ENOENT);
    CHECK_STR_EQ(monostamp_strerror(rc), strerror(ENOENT));
    rc = open_shared(&c, dir); /* a directory */
    CHECK_RC(rc, MONOSTAMP_EOS(EISDIR));
    CHECK_EQ(monostamp_os_errno(rc), EISDIR);
#endif
    CHECK_RC(open_shared(&c, ""), MONOSTAMP_EINVAL);
    CHECK_EQ(monostamp_os_errno(MONOSTAMP_EINVAL), 0);
}

#if !defined(_WIN32)
/* Builds a state file the way another user would: a good one from the
 * library, then given `mode` (and `uid` if >= 0). */
static void plant(const char *name, mode_t mode, int uid)
{
    monostamp_clock c;
    const char *path = path_in_dir(name);
    unlink(path);
    if (open_shared(&c, path) == MONOSTAMP_OK)
        monostamp_clock_destroy(&c);
    if (chmod(path, mode) != 0)
        abort();
    if (uid >= 0 && chown(path, (uid_t)uid, (gid_t)-1) != 0)
        abort();
}

static void test_files_other_users_could_write_are_refused(void)
{
    monostamp_clock c;
    /* Writable by others, or by the group: anyone there could push the
     * sequence years ahead. */
    plant("world.state", 0666, -1);
    CHECK_RC(open_shared(&c, path_in_dir("world.state")), MONOSTAMP_EUNSAFE);
    CHECK_RC(open_trusting_group(&c, path_in_dir("world.state")), MONOSTAMP_EUNSAFE);
    plant("group.state", 0660, -1);
    CHECK_RC(open_shared(&c, path_in_dir("group.state")), MONOSTAMP_EUNSAFE);
    /* ... unless the caller trusts its group. */
    CHECK_OK(open_trusting_group(&c, path_in_dir("group.state")));
    monostamp_clock_destroy(&c);
    /* A symbolic link is never followed, even to a good file of ours. */
    plant("target.state", 0600, -1);
    char target[256];
    snprintf(target, sizeof target, "%s", path_in_dir("target.state")); /* one buffer */
    CHECK_EQ(symlink(target, path_in_dir("link.state")), 0);
    CHECK_RC(open_shared(&c, path_in_dir("link.state")), MONOSTAMP_EUNSAFE);
    CHECK_RC(open_trusting_group(&c, path_in_dir("link.state")), MONOSTAMP_EUNSAFE);
    CHECK_OK(open_shared(&c, path_in_dir("target.state")));
    monostamp_clock_destroy(&c);
    /* MONOSTAMP_SHARED and monostamp_default_share are held to the rule. */
    CHECK_RC(monostamp_default_share(path_in_dir("world.state")), MONOSTAMP_EUNSAFE);
    /* A file the caller does not own: only as root can the test make one.
     * Root must not trust it either. */
    if (geteuid() == 0) {
        plant("theirs.state", 0600, 65534);
        CHECK_RC(open_shared(&c, path_in_dir("theirs.state")), MONOSTAMP_EUNSAFE);
        /* Another owner in a group of ours: only with trust_group. */
        plant("ours.state", 0660, 65534);
        CHECK_EQ(chown(path_in_dir("ours.state"), (uid_t)-1, getegid()), 0);
        CHECK_RC(open_shared(&c, path_in_dir("ours.state")), MONOSTAMP_EUNSAFE);
        CHECK_OK(open_trusting_group(&c, path_in_dir("ours.state")));
        monostamp_clock_destroy(&c);
    } else {
        printf("  (not root: the other-owner cases are skipped)\n");
    }
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EUNSAFE),
                 "state file another user could write (a symbolic link, not owned by you, "
                 "or writable by group or others)");
}
#endif

static void test_trust_group_creates_group_files(void)
{
    monostamp_clock c;
    struct stat st;
    const char *path = path_in_dir("made-for-group.state");
    CHECK_OK(open_trusting_group(&c, path));
    monostamp_clock_destroy(&c);
    CHECK_EQ(stat(path, &st), 0);
#if defined(_WIN32)
    /* No group bits there: the file takes its directory's permissions
     * (how a Windows group shares a folder), not the private DACL. */
    CHECK_EQ(st.st_size, 128);
    CHECK(!check_file_is_private(path));
#else
    CHECK_EQ(st.st_mode & 0777, 0660);
#endif
    monostamp_options o;
    monostamp_options_init(&o);
    o.trust_group = 2;
    const char *field = NULL;
    CHECK_RC(monostamp_options_check(&o, &field), MONOSTAMP_EINVAL);
    CHECK_STR_EQ(field, "trust_group");
}

static void test_creation_leaves_nothing_behind(void)
{
    /* A name of 250 bytes: a temporary name made by adding a suffix to it
     * would pass NAME_MAX (255) and fail with ENAMETOOLONG. */
    char sub[300], name[251], cmd[700];
    monostamp_clock c;
    snprintf(sub, sizeof sub, "%s/fresh", dir);
#if defined(_WIN32)
    /* XXX: a path of MAX_PATH (260) or more needs the \\?\ prefix, which
     * the library does not add: a name that fits, beside the temp dir. */
    size_t name_len = 250;
    if (strlen(sub) + 1 + name_len >= MAX_PATH) {
        name_len = MAX_PATH - 1 - strlen(sub) - 1;
        SKIP_PART("a 250-byte file name: the path would pass MAX_PATH");
    }
    CHECK_EQ(_mkdir(sub), 0);
    (void)cmd;
#else
    size_t name_len = 250;
    CHECK_EQ(mkdir(sub, 0700), 0);
#endif
    memset(name, 'n', name_len);
    name[name_len] = '\0';
    char path[600];
    snprintf(path, sizeof path, "%s/%s", sub, name);
    CHECK_OK(open_shared(&c, path));
    monostamp_clock_destroy(&c);
    /* The directory holds the state file and nothing else. */
#if defined(_WIN32)
    WIN32_FIND_DATAA found;
    char pattern[320];
    int entries = 0;
    snprintf(pattern, sizeof pattern, "%s\\*", sub);
    HANDLE search = FindFirstFileA(pattern, &found);
    CHECK(search != INVALID_HANDLE_VALUE);
    do {
        if (strcmp(found.cFileName, ".") != 0 && strcmp(found.cFileName, "..") != 0)
            entries++;
    } while (FindNextFileA(search, &found));
    FindClose(search);
    CHECK_EQ(entries, 1);
#else
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s' | wc -l)\" -eq 1", sub);
    CHECK_EQ(system(cmd), 0);
#endif
}

int main(void)
{
    if (check_make_temp_dir(dir, sizeof dir, "monostamp-test") != 0) {
        perror("test_shared_files setup");
        return 1;
    }
    RUN(test_new_file_is_created_private);
    RUN(test_foreign_short_and_other_version_files_are_refused);
    RUN(test_system_errors_carry_errno);
    RUN(test_files_other_users_could_write_are_refused);
    RUN(test_trust_group_creates_group_files);
    RUN(test_creation_leaves_nothing_behind);
    if (check_remove_tree(dir) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
