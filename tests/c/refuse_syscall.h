/*
 * refuse_syscall.h: makes one system call fail with a chosen errno in this
 * process from now on, as a kernel without it (ENOSYS) or a container's
 * seccomp filter (often EPERM) would; for a test's fork()ed child, since it
 * cannot be undone.  0, or -1 where seccomp filters are refused (the kernel,
 * a sandbox, an emulator).  Linux only.
 */
#ifndef MONOSTAMP_REFUSE_SYSCALL_H
#define MONOSTAMP_REFUSE_SYSCALL_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

static int refuse_syscall(unsigned nr, int err)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof code / sizeof code[0]), code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

#endif
