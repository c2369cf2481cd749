/*
 * waiter.c: what a Python thread does around each nap of a lead wait.
 *
 * A stamp that leads its source by more than max_lead_ns may wait for it
 * (on_lead='wait'): the core naps in steps of at most 10 ms.  Every clock
 * the binding makes, and the default clock, carries this waiter: before a
 * nap it lets the GIL go, so that other threads run while this one waits;
 * after it, it takes the GIL back and runs the signal handlers, so that
 * Ctrl-C ends the wait (the stamp then fails with MONOSTAMP_EINTR, the
 * state unchanged, and raise_core raises the handler's exception).
 *
 * A stamp that does not wait never calls the waiter: the common call keeps
 * the GIL for its few nanoseconds, with no release and no re-take.
 */
#include "module.h"

/* Whether this thread holds the GIL (is attached to its thread state).
 * The core's default clock may be stamped by a thread that does not: one
 * inside another stamp's nap cannot be, but C code of the embedding
 * application could.  Such a thread has nothing to let go of. */
static int holding_the_gil(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyThreadState_GetUnchecked() != NULL;
#else
    /* Before 3.13 the unchecked getter answers "the thread state that
     * holds the GIL", whichever thread that is: ours only if it is ours. */
    PyThreadState *current = _PyThreadState_UncheckedGet();
    return current != NULL && current == PyGILState_GetThisThreadState();
#endif
}

/* The token is the thread state let go of, or NULL if none was held. */
static void *let_the_gil_go(void *unused)
{
    (void)unused;
    return holding_the_gil() ? PyEval_SaveThread() : NULL;
}

static int take_the_gil_back(void *unused, void *token)
{
    (void)unused;
    if (token == NULL)
        return 0;
    PyEval_RestoreThread((PyThreadState *)token);
    /* Nonzero, with the handler's exception set, ends the wait. */
    return PyErr_CheckSignals() < 0;
}

const monostamp_waiter ms_waiter = {let_the_gil_go, take_the_gil_back, NULL};

/* How many module objects set the waiter on the default clock: the core
 * has one default clock per process, and the last module freed clears it. */
static atomic_int default_clock_users;

void ms_waiter_on_default_clock(monostamp_clock *clock)
{
    if (atomic_fetch_add(&default_clock_users, 1) == 0)
        (void)monostamp_clock_set_waiter(clock, &ms_waiter);
}

void ms_waiter_off_default_clock(monostamp_clock *clock)
{
    if (atomic_fetch_sub(&default_clock_users, 1) == 1)
        (void)monostamp_clock_set_waiter(clock, NULL);
}
