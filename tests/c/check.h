/*
 * check.h: the smallest test framework that prints both values on failure.
 *
 *   static void test_something(void) { CHECK_EQ(1 + 1, 2); }
 *   int main(void) { RUN(test_something); return check_summary(); }
 *
 * A failed CHECK reports file, line, both expressions and both values,
 * marks the current test failed and returns from it.  check_summary()
 * prints "N passed, N failed" and returns the exit status.
 *
 * A test that cannot run on this platform says so with SKIP("why"): the
 * reason is printed and the test is counted apart, as skipped (the
 * summary then adds ", N skipped"), never as passed.
 */
#ifndef MONOSTAMP_CHECK_H
#define MONOSTAMP_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failed_now;
static int check_skipped_now;
static int check_passed_count;
static int check_failed_count;
static int check_skipped_count;

#if defined(_WIN32)
#define CHECK_PLATFORM_ "Windows"
#else
#define CHECK_PLATFORM_ "this platform"
#endif

/* Ends the current test as skipped, printing why.  SKIP_PART says the
 * same of one part of a test that goes on; both count as skipped. */
#define SKIP(reason)                                                          \
    do {                                                                      \
        printf("  skipped on " CHECK_PLATFORM_ ": %s\n", reason);            \
        check_skipped_now = 1;                                                \
        return;                                                               \
    } while (0)

#define SKIP_PART(reason)                                                     \
    do {                                                                      \
        printf("  skipped on " CHECK_PLATFORM_ ": %s\n", reason);            \
        check_skipped_count++;                                                \
    } while (0)

#define CHECK_FAIL_(fmt, ...)                                                 \
    do {                                                                      \
        fprintf(stderr, "  %s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__); \
        check_failed_now = 1;                                                 \
        return;                                                               \
    } while (0)

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) CHECK_FAIL_("CHECK(%s) failed", #cond);                  \
    } while (0)

/* Compares as intmax_t; prints both sides. */
#define CHECK_OP_(a, op, b)                                                   \
    do {                                                                      \
        intmax_t check_a_ = (intmax_t)(a), check_b_ = (intmax_t)(b);          \
        if (!(check_a_ op check_b_))                                          \
            CHECK_FAIL_("CHECK(%s %s %s) failed: %jd vs %jd", #a, #op, #b,    \
                        check_a_, check_b_);                                  \
    } while (0)
#define CHECK_EQ(a, b) CHECK_OP_(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP_(a, !=, b)
#define CHECK_LT(a, b) CHECK_OP_(a, <, b)
#define CHECK_LE(a, b) CHECK_OP_(a, <=, b)
#define CHECK_GT(a, b) CHECK_OP_(a, >, b)
#define CHECK_GE(a, b) CHECK_OP_(a, >=, b)

#define CHECK_STR_EQ(a, b)                                                    \
    do {                                                                      \
        const char *check_sa_ = (a), *check_sb_ = (b);                        \
        if (check_sa_ == NULL || check_sb_ == NULL ||                         \
            strcmp(check_sa_, check_sb_) != 0)                                \
            CHECK_FAIL_("CHECK_STR_EQ(%s, %s) failed: \"%s\" vs \"%s\"", #a,  \
                        #b, check_sa_ ? check_sa_ : "(null)",                 \
                        check_sb_ ? check_sb_ : "(null)");                    \
    } while (0)

/* A call returning a monostamp code must return `code`; prints the names. */
#define CHECK_RC(call, code)                                                  \
    do {                                                                      \
        int check_rc_ = (call), check_want_ = (code);                         \
        if (check_rc_ != check_want_)                                         \
            CHECK_FAIL_("%s returned %d (%s), expected %d (%s)", #call,       \
                        check_rc_, monostamp_strerror(check_rc_),             \
                        check_want_, monostamp_strerror(check_want_));        \
    } while (0)
#define CHECK_OK(call) CHECK_RC(call, 0)

#define RUN(fn)                                                               \
    do {                                                                      \
        check_failed_now = 0;                                                 \
        check_skipped_now = 0;                                                \
        fn();                                                                 \
        if (check_failed_now) {                                               \
            check_failed_count++;                                             \
            fprintf(stderr, "FAIL %s\n", #fn);                                \
        } else if (check_skipped_now) {                                       \
            check_skipped_count++;                                            \
            printf("SKIP %s\n", #fn);                                         \
        } else {                                                              \
            check_passed_count++;                                             \
        }                                                                     \
    } while (0)

/*
 * Portability for the tests themselves (the library has its own OS layer):
 * a private temporary directory, and setenv/unsetenv where the C library
 * lacks them.  On Windows the directory goes under GetTempPath and the
 * environment is changed with _putenv_s, which the library's getenv sees
 * (one C runtime).  _putenv_s cannot hold an empty value: it removes the
 * variable, so tests that need TZ="" skip that part there.
 */
#if defined(_WIN32)
#include <direct.h>
#include <stdlib.h>
#include <windows.h>
#include <aclapi.h>

static inline int setenv(const char *name, const char *value, int overwrite)
{
    if (!overwrite && getenv(name) != NULL)
        return 0;
    return _putenv_s(name, value) == 0 ? 0 : -1;
}

static inline int unsetenv(const char *name)
{
    return _putenv_s(name, "") == 0 ? 0 : -1;
}

/* Makes <temp>\<prefix>-<pid>-<n> into buf; 0 or -1. */
static inline int check_make_temp_dir(char *buf, size_t size, const char *prefix)
{
    char base[MAX_PATH + 1];
    DWORD n = GetTempPathA(sizeof base, base);
    if (n == 0 || n > MAX_PATH)
        return -1;
    for (unsigned i = 0; i < 100; i++) {
        int len = snprintf(buf, size, "%s%s-%lu-%u", base, prefix,
                           (unsigned long)GetCurrentProcessId(), i);
        if (len < 0 || (size_t)len >= size)
            return -1;
        if (_mkdir(buf) == 0)
            return 0;
    }
    return -1;
}

/* 1 if the file's DACL grants rights to the process's user and LocalSystem
 * alone: Windows' 0600.  (The library writes the user's ACE alone, in a
 * protected DACL; Wine derives DACLs from Unix modes and shows SYSTEM too,
 * and no protected flag, so neither is asserted.)  A file made by fopen
 * fails this: Everyone may read it. */
static inline int check_file_is_private(const char *path)
{
    PSECURITY_DESCRIPTOR sd = NULL;
    PACL dacl = NULL;
    DWORD len = 0;
    HANDLE token;
    if (GetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                              &dacl, NULL, &sd) != ERROR_SUCCESS)
        return 0;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) {
        LocalFree(sd);
        return 0;
    }
    (void)GetTokenInformation(token, TokenUser, NULL, 0, &len);
    TOKEN_USER *user = malloc(len);
    int ok = user != NULL && GetTokenInformation(token, TokenUser, user, len, &len) &&
             dacl != NULL && dacl->AceCount > 0;
    int users = 0;
    for (DWORD i = 0; ok && i < dacl->AceCount; i++) {
        ACCESS_ALLOWED_ACE *ace;
        if (!GetAce(dacl, i, (void **)&ace) || ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE) {
            ok = 0;
            break;
        }
        PSID sid = (PSID)&ace->SidStart;
        users += EqualSid(sid, user->User.Sid);
        ok = EqualSid(sid, user->User.Sid) || IsWellKnownSid(sid, WinLocalSystemSid);
    }
    free(user);
    CloseHandle(token);
    LocalFree(sd);
    return ok && users == 1;
}

/* Removes the directory `dir` and all it holds (cmd's rmdir); 0 or not. */
static inline int check_remove_tree(const char *dir)
{
    char cmd[600];
    if (snprintf(cmd, sizeof cmd, "rmdir /s /q \"%s\" >NUL 2>&1", dir) >= (int)sizeof cmd)
        return -1;
    return system(cmd);
}
#else
#include <stdlib.h>

/* Makes /tmp/<prefix>-XXXXXX (mode 0700) into buf; 0 or -1. */
static inline int check_make_temp_dir(char *buf, size_t size, const char *prefix)
{
    int len = snprintf(buf, size, "/tmp/%s-XXXXXX", prefix);
    if (len < 0 || (size_t)len >= size)
        return -1;
    return mkdtemp(buf) != NULL ? 0 : -1;
}

/* Removes the directory `dir` and all it holds (rm -rf); 0 or not. */
static inline int check_remove_tree(const char *dir)
{
    char cmd[600];
    if (snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= (int)sizeof cmd)
        return -1;
    return system(cmd);
}

/*
 * A start gate for fork() children, so that a concurrency test's runs
 * overlap for certain, not by the scheduler's grace on a busy machine:
 *
 *   check_gate g; check_gate_init(&g);
 *   fork()s; each child, set up: check_gate_wait(&g) (blocks);
 *   parent: check_gate_open(&g, children) waits for every child to be
 *   ready, then lets all go at once (and may stamp itself meanwhile).
 *
 * Children block on a read of a pipe whose write ends all close when the
 * gate opens: one event wakes them all.
 */
#include <unistd.h>
typedef struct check_gate {
    int ready[2]; /* each child writes one byte when set up */
    int go[2];    /* read by the children: EOF once the parent closes go[1] */
} check_gate;

static inline int check_gate_init(check_gate *g)
{
    if (pipe(g->ready) != 0)
        return -1;
    if (pipe(g->go) != 0) {
        close(g->ready[0]);
        close(g->ready[1]);
        return -1;
    }
    return 0;
}

/* In a child: 0 once the gate opened, -1 if it never will. */
static inline int check_gate_wait(check_gate *g)
{
    char byte = 'r';
    close(g->go[1]);
    close(g->ready[0]);
    if (write(g->ready[1], &byte, 1) != 1)
        return -1;
    close(g->ready[1]);
    return read(g->go[0], &byte, 1) == 0 ? 0 : -1;
}

/* In the parent, after the forks: waits for `children` ready bytes, then
 * opens the gate.  0, or -1 if some child never got ready (the gate is
 * opened anyway, so no child blocks for ever). */
static inline int check_gate_open(check_gate *g, int children)
{
    char bytes[16];
    int got = 0;
    ssize_t r = 0;
    close(g->ready[1]);
    close(g->go[0]);
    while (got < children && (r = read(g->ready[0], bytes, sizeof bytes)) > 0)
        got += (int)r;
    close(g->go[1]);
    close(g->ready[0]);
    return got == children ? 0 : -1;
}
#endif

static inline int check_summary(void)
{
    if (check_skipped_count > 0)
        printf("%d passed, %d failed, %d skipped\n", check_passed_count, check_failed_count,
               check_skipped_count);
    else
        printf("%d passed, %d failed\n", check_passed_count, check_failed_count);
    return check_failed_count == 0 ? 0 : 1;
}

#endif
