/*
 * shared_files_windows.h: test_shared_files.c's tests as Windows runs
 * them, where the POSIX versions chmod or truncate (docs/windows.md).
 * Part of test_shared_files.c, which alone includes it, after its helpers
 * (open_shared, path_in_dir, open_trusting_group): a header so that each
 * file stays short.
 */
#ifndef MONOSTAMP_SHARED_FILES_WINDOWS_H
#define MONOSTAMP_SHARED_FILES_WINDOWS_H

#include <sddl.h>

/* Builds a good state file with the library, then gives it the DACL
 * `sddl` (SDDL text; "%s" stands for this user's SID).  0 or -1. */
static int plant_with_dacl(const char *name, const char *sddl)
{
    monostamp_clock c;
    const char *path = path_in_dir(name);
    char text[512], *me = NULL;
    DWORD len = 0;
    HANDLE token;
    TOKEN_USER *user;
    PSECURITY_DESCRIPTOR sd = NULL;
    PACL dacl = NULL;
    BOOL present = FALSE, defaulted = FALSE;
    int rc = -1;
    unlink(path);
    if (open_shared(&c, path) != MONOSTAMP_OK)
        return -1;
    monostamp_clock_destroy(&c);
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        return -1;
    (void)GetTokenInformation(token, TokenUser, NULL, 0, &len);
    if ((user = malloc(len)) != NULL && GetTokenInformation(token, TokenUser, user, len, &len) &&
        ConvertSidToStringSidA(user->User.Sid, &me)) {
        snprintf(text, sizeof text, sddl, me);
        if (ConvertStringSecurityDescriptorToSecurityDescriptorA(text, SDDL_REVISION_1, &sd,
                                                                 NULL) &&
            GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted) &&
            SetNamedSecurityInfoA((char *)path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
                                  NULL, dacl, NULL) == ERROR_SUCCESS)
            rc = 0;
    }
    LocalFree(sd);
    LocalFree(me);
    free(user);
    CloseHandle(token);
    return rc;
}

/* What "another user could write it" means on Windows (docs/windows.md):
 * an ACE granting a write right to a SID not trusted. */
static void test_files_other_users_could_write_are_refused(void)
{
    monostamp_clock c;
    /* Everyone may write: refused, whatever the caller trusts. */
    CHECK_EQ(plant_with_dacl("world.state", "D:(A;;FA;;;%s)(A;;FRFW;;;WD)"), 0);
    CHECK(!check_file_is_private(path_in_dir("world.state"))); /* the DACL took */
    CHECK_RC(open_shared(&c, path_in_dir("world.state")), MONOSTAMP_EUNSAFE);
    CHECK_RC(open_trusting_group(&c, path_in_dir("world.state")), MONOSTAMP_EUNSAFE);
    CHECK_RC(monostamp_default_share(path_in_dir("world.state")), MONOSTAMP_EUNSAFE);
    /* Everyone may read only: fine, as a 0644 file is on POSIX. */
    CHECK_EQ(plant_with_dacl("readable.state", "D:(A;;FA;;;%s)(A;;FR;;;WD)"), 0);
    CHECK_OK(open_shared(&c, path_in_dir("readable.state")));
    monostamp_clock_destroy(&c);
    SKIP_PART("a group-writable file: Wine keeps a group's ACE as Unix group mode bits "
              "and never shows it back in the DACL, so none can be made here");
    /* A symbolic link is never followed, even to a good file of ours. */
    char target[256];
    snprintf(target, sizeof target, "%s", path_in_dir("target.state"));
    CHECK_OK(open_shared(&c, target));
    monostamp_clock_destroy(&c);
    /* Wine's CreateSymbolicLink reports success and makes nothing, and it
     * follows Unix links without showing a reparse point: the link is
     * tested only where one is really there. */
    if (CreateSymbolicLinkA(path_in_dir("link.state"), target, 0) &&
        (GetFileAttributesA(path_in_dir("link.state")) & FILE_ATTRIBUTE_REPARSE_POINT) &&
        GetFileAttributesA(path_in_dir("link.state")) != INVALID_FILE_ATTRIBUTES) {
        CHECK_RC(open_shared(&c, path_in_dir("link.state")), MONOSTAMP_EUNSAFE);
        CHECK_RC(open_trusting_group(&c, path_in_dir("link.state")), MONOSTAMP_EUNSAFE);
    } else {
        SKIP_PART("no symbolic link could be made (Wine makes none; Windows wants "
                  "SeCreateSymbolicLinkPrivilege or developer mode)");
    }
    SKIP_PART("a file another user owns: the test has no second account");
    CHECK_STR_EQ(monostamp_strerror(MONOSTAMP_EUNSAFE),
                 "state file another user could write (a symbolic link, not owned by you, "
                 "or writable by group or others)");
}

/* Windows refuses to cut a file short while a view of it is mapped
 * (ERROR_USER_MAPPED_FILE): there is no fault to guard against, and the
 * clock goes on (docs/windows.md; POSIX: test_shared_attacks.c). */
static void test_a_file_truncated_under_a_clock_is_refused(void)
{
    char path[256];
    monostamp_clock c;
    int64_t a, b;
    snprintf(path, sizeof path, "%s", path_in_dir("truncated.state"));
    CHECK_OK(open_shared(&c, path));
    CHECK_OK(monostamp_time_ns(&c, &a));
    HANDLE h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    CHECK(h != INVALID_HANDLE_VALUE);
    BOOL cut = SetEndOfFile(h); /* at offset 0: to nothing */
    DWORD err = GetLastError();
    CloseHandle(h);
    CHECK(!cut);
    CHECK_EQ(err, ERROR_USER_MAPPED_FILE);
    CHECK_OK(monostamp_time_ns(&c, &b));
    CHECK_GT(b, a);
    monostamp_clock_destroy(&c);
}

#endif
