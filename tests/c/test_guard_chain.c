/* test_guard_chain.c: the truncation guard behind a SIGBUS handler that was
 * installed after it, as Python's faulthandler is whenever a shared clock
 * opened first (an xdist worker joins the run's file at import): that
 * handler gets the fault first, puts the handler before it (ours) back and
 * raises the signal again, which then carries no address.  The guard must
 * still find the truncated page and go on, also where process_vm_readv,
 * its first way to find it, is refused: qemu-user has no such call
 * (ENOSYS) and a container's seccomp filter may forbid it (EPERM).
 *
 * Each case runs in a fork()ed child, which may install a seccomp filter
 * refusing process_vm_readv alone with that errno, opens a shared clock,
 * installs the re-raising handler, stamps, truncates the file, stamps
 * again; it reports by its exit status (a signal: the guard failed).
 * Linux only. */
#if defined(__linux__)
#define _GNU_SOURCE 1 /* SYS_process_vm_readv */
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "monostamp.h"

#if defined(__linux__)
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "refuse_syscall.h"

#if defined(SYS_process_vm_readv)
enum { REFUSE_NOTHING = 0 };

/* Exit codes of the child, each naming the step that went wrong. */
enum { CHILD_OK, CHILD_NO_FILTER, CHILD_CALL_NOT_REFUSED, CHILD_OPEN_FAILED,
       CHILD_STAMP_FAILED, CHILD_TRUNCATE_FAILED, CHILD_WENT_BACK, CHILD_NOT_RERAISED,
       CHILD_NOT_REPAIRED };

/* faulthandler's way: the handler before it back in place, the signal
 * raised again (SA_NODEFER: at once, inside this one). */
static struct sigaction before_theirs;
static volatile sig_atomic_t reraised;

static void reraising_handler(int sig)
{
    reraised++;
    sigaction(sig, &before_theirs, NULL);
    raise(sig);
}

static int child(const char *path, int err)
{
    char byte;
    struct iovec local = {&byte, 1}, remote = {&byte, 1};
    if (err != REFUSE_NOTHING) {
        if (refuse_syscall(SYS_process_vm_readv, err) != 0)
            return CHILD_NO_FILTER;
        if (syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0) != -1 ||
            errno != err)
            return CHILD_CALL_NOT_REFUSED;
    }
    monostamp_options o;
    monostamp_options_init(&o);
    o.zone = "UTC";
    o.shared_path = path;
    monostamp_clock clock;
    if (monostamp_clock_init(&clock, &o) != MONOSTAMP_OK)
        return CHILD_OPEN_FAILED;
    struct sigaction theirs;
    memset(&theirs, 0, sizeof theirs);
    theirs.sa_handler = reraising_handler;
    theirs.sa_flags = SA_NODEFER;
    sigemptyset(&theirs.sa_mask);
    sigaction(SIGBUS, &theirs, &before_theirs);
    int64_t before, after;
    if (monostamp_time_ns(&clock, &before) != MONOSTAMP_OK)
        return CHILD_STAMP_FAILED;
    if (truncate(path, 0) != 0)
        return CHILD_TRUNCATE_FAILED;
    if (monostamp_time_ns(&clock, &after) != MONOSTAMP_OK)
        return CHILD_STAMP_FAILED;
    if (after <= before)
        return CHILD_WENT_BACK;
    if (reraised != 1)
        return CHILD_NOT_RERAISED; /* the fault went past their handler */
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size == 0)
        return CHILD_NOT_REPAIRED;
    monostamp_clock_destroy(&clock);
    return CHILD_OK;
}

static void truncated_behind_a_reraising_handler(int err)
{
    char dir[256], path[300];
    CHECK_EQ(check_make_temp_dir(dir, sizeof dir, "monostamp-chain"), 0);
    snprintf(path, sizeof path, "%s/state", dir);
    int status = 0;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(child(path, err));
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    check_remove_tree(dir);
    if (WIFSIGNALED(status))
        CHECK_FAIL_("the child was killed by signal %d", WTERMSIG(status));
    CHECK(WIFEXITED(status));
    if (WEXITSTATUS(status) == CHILD_NO_FILTER)
        SKIP("no seccomp filters here (the kernel or a sandbox refuses them)");
    CHECK_EQ(WEXITSTATUS(status), CHILD_OK);
}

#define HAVE_TEST 1
#endif
#endif

#if !defined(HAVE_TEST)
static void truncated_behind_a_reraising_handler(int err)
{
    (void)err;
    SKIP("the guard, process_vm_readv and seccomp filters are Linux's");
}
enum { REFUSE_NOTHING = 0 };
#endif

static void test_truncated_behind_a_reraising_handler(void)
{
    truncated_behind_a_reraising_handler(REFUSE_NOTHING);
}

static void test_truncated_behind_it_without_process_vm_readv_enosys(void)
{
    truncated_behind_a_reraising_handler(ENOSYS);
}

static void test_truncated_behind_it_without_process_vm_readv_eperm(void)
{
    truncated_behind_a_reraising_handler(EPERM);
}

int main(void)
{
    RUN(test_truncated_behind_a_reraising_handler);
    RUN(test_truncated_behind_it_without_process_vm_readv_enosys);
    RUN(test_truncated_behind_it_without_process_vm_readv_eperm);
    return check_summary();
}
