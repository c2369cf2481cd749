/* test_os_random.c: monostamp__os_random when the getrandom system call
 * fails (a kernel older than 3.17 says ENOSYS, a container's seccomp filter
 * often EPERM): it reads /dev/urandom instead.  A fork()ed child installs a
 * seccomp filter that fails getrandom alone with that errno, shows that the
 * raw call now fails so, then draws bytes through the OS layer; it reports
 * by its exit status.  Linux only. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "os.h"

#if defined(__linux__)
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "refuse_syscall.h"

#if defined(SYS_getrandom)
/* Exit codes of the child, each naming the step that went wrong. */
enum { CHILD_OK, CHILD_NO_FILTER, CHILD_CALL_NOT_REFUSED, CHILD_RANDOM_FAILED, CHILD_SAME_BYTES };

static int child(int err)
{
    unsigned char a[48], b[48], zero[48] = {0};
    if (refuse_syscall(SYS_getrandom, err) != 0)
        return CHILD_NO_FILTER;
    if (syscall(SYS_getrandom, a, sizeof a, 0) != -1 || errno != err)
        return CHILD_CALL_NOT_REFUSED;
    if (monostamp__os_random(a, sizeof a) != 0 || monostamp__os_random(b, sizeof b) != 0)
        return CHILD_RANDOM_FAILED;
    if (memcmp(a, b, sizeof a) == 0 || memcmp(a, zero, sizeof a) == 0)
        return CHILD_SAME_BYTES;
    return CHILD_OK;
}

static void random_without_getrandom(int err)
{
    int status = 0;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(child(err));
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    if (WEXITSTATUS(status) == CHILD_NO_FILTER)
        SKIP("no seccomp filters here (the kernel or a sandbox refuses them)");
    CHECK_EQ(WEXITSTATUS(status), CHILD_OK);
}

#define HAVE_TEST 1
#endif
#endif

#if !defined(HAVE_TEST)
static void random_without_getrandom(int err)
{
    (void)err;
    SKIP("the getrandom system call and seccomp filters are Linux's");
}
#endif

static void test_random_when_getrandom_says_enosys(void)
{
    random_without_getrandom(ENOSYS);
}

static void test_random_when_getrandom_says_eperm(void)
{
    random_without_getrandom(EPERM);
}

int main(void)
{
    RUN(test_random_when_getrandom_says_enosys);
    RUN(test_random_when_getrandom_says_eperm);
    return check_summary();
}
