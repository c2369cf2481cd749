/*
 * os_posix_guard.c: a state file truncated under the processes that have
 * it mapped must not kill them (os.h, monostamp__os_guard).
 *
 * Truncating a mapped file takes its pages away: the next access to the
 * mapping raises SIGBUS, whose default kills the process.  A stamp must not
 * pay for a sigsetjmp around its one compare-and-swap, so the access is
 * left as it is and the fault itself is repaired: while any state file is
 * guarded, a SIGBUS handler is installed, and a fault inside a guarded
 * page swaps a private page in over it, whose state reads RETIRED; the
 * faulting instruction runs again on that page, and the stamp rejoins
 * through the file's place like any stamp that finds its state retired
 * (clock_share.c).  Every other SIGBUS goes to the handler that was there
 * before ours (or, if that was the default, kills as it would have).
 *
 * The private page must read RETIRED the moment it is there: a thread that
 * found zeros instead would take them for a state gone backwards and stamp
 * on a page no other process sees.  So it is made and filled when the
 * mapping is guarded, and moved over the faulting page in one step
 * (mremap with MREMAP_FIXED, Linux).  Two threads faulting at once: one
 * moves the page, the other waits for it and retries.  Elsewhere nothing
 * is guarded (docs/clock-core.md).
 *
 * The handler reads only atomics and makes only async-signal-safe calls.
 */
#if !defined(_WIN32) && defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* mremap's MREMAP_FIXED */
#endif
#include "os.h"

#if !defined(_WIN32)

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(__linux__) && defined(MREMAP_FIXED) && defined(MREMAP_MAYMOVE) && \
    defined(SA_SIGINFO)

enum { TRIP_NONE = 0, TRIP_DONE = 1, TRIP_FAILED = 2 };

struct guard {
    _Atomic(void *) page;  /* the guarded page, or NULL: a free entry */
    _Atomic(void *) spare; /* the tombstone page, NULL once taken */
    _Atomic int tripped;   /* TRIP_*: whether the spare was swapped in */
};

/* Entries are never freed, so that the handler can walk them while
 * another thread adds some: a first chunk, then more as needed. */
enum { GUARDS_PER_CHUNK = 32 };
struct chunk {
    struct guard guards[GUARDS_PER_CHUNK];
    _Atomic(struct chunk *) next;
};

static struct chunk first_chunk;
/* guard/unguard hold it; the handler never does. */
static monostamp__os_mutex lock = MONOSTAMP__OS_MUTEX_INIT;
static size_t guarded;            /* entries in use */
static int installed;             /* our handler is (or was last) in place */
static struct sigaction previous; /* the handler before ours */
static _Atomic size_t page_size; /* set by the first guard */

static struct guard *find(const void *page)
{
    for (struct chunk *c = &first_chunk; c != NULL;
         c = atomic_load_explicit(&c->next, memory_order_acquire))
        for (int i = 0; i < GUARDS_PER_CHUNK; i++)
            if (atomic_load_explicit(&c->guards[i].page, memory_order_acquire) == page)
                return &c->guards[i];
    return NULL;
}

/* In the handler: swaps the tombstone in over the guarded page holding
 * `addr`.  1 if the page now holds it (the access can be retried), 0 if
 * `addr` is not ours or the swap failed. */
static int swap_in(const void *addr)
{
    size_t size = atomic_load_explicit(&page_size, memory_order_relaxed);
    if (size == 0)
        return 0;
    const void *page = (const void *)((uintptr_t)addr & ~(uintptr_t)(size - 1));
    struct guard *g = find(page);
    if (g == NULL)
        return 0;
    void *spare = atomic_exchange_explicit(&g->spare, NULL, memory_order_acq_rel);
    if (spare != NULL) {
        void *moved = mremap(spare, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)page);
        atomic_store_explicit(&g->tripped, moved == page ? TRIP_DONE : TRIP_FAILED,
                              memory_order_release);
    }
    /* Another thread's fault is moving it: wait (a few system calls). */
    int tripped;
    while ((tripped = atomic_load_explicit(&g->tripped, memory_order_acquire)) == TRIP_NONE)
        monostamp__os_cpu_relax();
    return tripped == TRIP_DONE;
}

/* 1 if reading the guarded page faults: its file was truncated.  Read by
 * the kernel on our behalf, so that a fault is an error, not a signal:
 * process_vm_readv, or where it is refused (qemu-user has no such call;
 * a seccomp filter may forbid it) a write from the page into a new pipe,
 * which costs two descriptors for a moment. */
static int page_faults(const void *page)
{
    char byte;
    struct iovec local = {&byte, 1}, remote = {(void *)(uintptr_t)page, 1};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) >= 0)
        return 0;
    if (errno == EFAULT)
        return 1;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0)
        return 0;
    int faulted = write(ends[1], page, 1) < 0 && errno == EFAULT;
    close(ends[0]);
    close(ends[1]);
    return faulted;
}

/* A SIGBUS that does not say where (raised again by a handler installed
 * after ours, as Python's faulthandler does once it has printed its
 * report): every guarded page whose file was truncated gets its
 * tombstone.  1 if one did. */
static int swap_in_truncated(void)
{
    int swapped = 0;
    for (struct chunk *c = &first_chunk; c != NULL;
         c = atomic_load_explicit(&c->next, memory_order_acquire))
        for (int i = 0; i < GUARDS_PER_CHUNK; i++) {
            struct guard *g = &c->guards[i];
            const void *page = atomic_load_explicit(&g->page, memory_order_acquire);
            if (page != NULL && atomic_load_explicit(&g->tripped, memory_order_acquire) == 0 &&
                page_faults(page))
                swapped |= swap_in(page);
        }
    return swapped;
}

/* Hands a SIGBUS that is not ours to the handler before ours. */
static void pass_on(int sig, siginfo_t *info, void *context)
{
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction != NULL)
            previous.sa_sigaction(sig, info, context);
        return;
    }
    if (previous.sa_handler == SIG_IGN)
        return; /* a fault ignored comes back, and the kernel kills */
    if (previous.sa_handler == SIG_DFL) {
        /* As if we had never been here: the default action, now. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        raise(sig);
        return;
    }
    previous.sa_handler(sig);
}

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    int saved = errno;
    /* si_code > 0: raised by a fault, not sent by kill(), and si_addr says
     * where; raised by this process (a handler installed after ours
     * passing it on), look at every guarded page. */
    int ours = 0;
    if (info != NULL && info->si_code > 0)
        ours = swap_in(info->si_addr);
    else if (info != NULL && info->si_code == SI_TKILL && info->si_pid == getpid())
        ours = swap_in_truncated(); /* raise(): a handler after ours passing it on */
    errno = saved;
    if (!ours)
        pass_on(sig, info, context);
}

/* With the lock held: our handler in front, the one before kept. */
static int install(void)
{
    struct sigaction ours;
    if (installed)
        return MONOSTAMP_OK;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_sigbus;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    if (sigaction(SIGBUS, &ours, &previous) != 0)
        return monostamp__os_fail(errno);
    installed = 1;
    return MONOSTAMP_OK;
}

/* With the lock held, the last guard gone: the handler before ours back,
 * unless another was installed after ours (it may hand SIGBUS on to us,
 * so ours stays, and passes on whatever it gets). */
static void uninstall(void)
{
    struct sigaction now;
    if (!installed || sigaction(SIGBUS, NULL, &now) != 0)
        return;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigbus &&
        sigaction(SIGBUS, &previous, NULL) == 0)
        installed = 0;
}

/* With the lock held: a free entry, a new chunk if all are taken. */
static struct guard *free_entry(void)
{
    struct chunk *c = &first_chunk;
    for (;;) {
        for (int i = 0; i < GUARDS_PER_CHUNK; i++)
            if (atomic_load_explicit(&c->guards[i].page, memory_order_relaxed) == NULL)
                return &c->guards[i];
        struct chunk *next = atomic_load_explicit(&c->next, memory_order_relaxed);
        if (next == NULL) {
            if ((next = calloc(1, sizeof *next)) == NULL)
                return NULL;
            atomic_store_explicit(&c->next, next, memory_order_release);
        }
        c = next;
    }
}

int monostamp__os_guard(void *addr, size_t size, const void *tombstone)
{
    size_t ps = atomic_load_explicit(&page_size, memory_order_relaxed);
    if (ps == 0) {
        long got = sysconf(_SC_PAGESIZE);
        ps = got > 0 ? (size_t)got : 4096;
        atomic_store_explicit(&page_size, ps, memory_order_relaxed);
    }
    if (((uintptr_t)addr & (ps - 1)) != 0 || size > ps)
        return MONOSTAMP_EINVAL;
    void *spare = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (spare == MAP_FAILED)
        return monostamp__os_fail(errno);
    memcpy(spare, tombstone, size);
    int rc;
    monostamp__os_mutex_lock(&lock);
    struct guard *g = free_entry();
    if (g == NULL) {
        rc = MONOSTAMP_ENOMEM;
    } else if ((rc = install()) == MONOSTAMP_OK) {
        atomic_store_explicit(&g->spare, spare, memory_order_relaxed);
        atomic_store_explicit(&g->tripped, TRIP_NONE, memory_order_relaxed);
        atomic_store_explicit(&g->page, addr, memory_order_release);
        guarded++;
    }
    monostamp__os_mutex_unlock(&lock);
    if (rc != MONOSTAMP_OK)
        munmap(spare, ps);
    return rc;
}

void monostamp__os_unguard(void *addr)
{
    monostamp__os_mutex_lock(&lock);
    struct guard *g = find(addr);
    if (g != NULL) {
        atomic_store_explicit(&g->page, NULL, memory_order_release);
        void *spare = atomic_exchange_explicit(&g->spare, NULL, memory_order_acq_rel);
        if (spare != NULL)
            munmap(spare, atomic_load_explicit(&page_size, memory_order_relaxed));
        if (--guarded == 0)
            uninstall();
    }
    monostamp__os_mutex_unlock(&lock);
}

int monostamp__os_guard_tripped(const void *addr)
{
    monostamp__os_mutex_lock(&lock);
    struct guard *g = find(addr);
    int tripped = g != NULL && atomic_load_explicit(&g->tripped, memory_order_acquire) == TRIP_DONE;
    monostamp__os_mutex_unlock(&lock);
    return tripped;
}

#else /* no page can be swapped in whole: nothing is guarded */

int monostamp__os_guard(void *addr, size_t size, const void *tombstone)
{
    (void)addr, (void)size, (void)tombstone;
    return MONOSTAMP_OK;
}

void monostamp__os_unguard(void *addr)
{
    (void)addr;
}

int monostamp__os_guard_tripped(const void *addr)
{
    (void)addr;
    return 0;
}

#endif
#endif /* !_WIN32 */
