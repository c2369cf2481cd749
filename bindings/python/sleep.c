/*
 * sleep.c: sleep() and sleep_until_ns(), the core's precise naps made
 * interruptible.
 *
 * The core resumes its sleep after signals (its contract: it wakes no
 * earlier than asked), so one long core sleep would keep Ctrl-C waiting.
 * Python sleeps here in slices of at most 50 ms, the GIL released,
 * running signal handlers between them.  The deadline is absolute, so
 * slicing adds no lateness: only the last slice uses the caller's
 * tolerance.
 */
#include "module.h"

#define SLICE_NS INT64_C(50000000)

int ms_sleep_until(ms_state *st, int64_t deadline_ns, int64_t tolerance_ns, const char *call,
                   PyObject *arg)
{
    for (;;) {
        int64_t now = monostamp_monotonic_ns();
        /* A past deadline is never subtracted from: INT64_MIN - now would
         * overflow.  A future one less now (>= 0) cannot. */
        int last = deadline_ns <= now || deadline_ns - now <= SLICE_NS;
        int64_t target = last ? deadline_ns : now + SLICE_NS;
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = monostamp_sleep_until(target, last ? tolerance_ns : SLICE_NS / 10);
        Py_END_ALLOW_THREADS
        if (rc != MONOSTAMP_OK) {
            raise_core(st, rc, NULL, "%s(%R)", call, arg);
            return -1;
        }
        if (PyErr_CheckSignals() < 0)
            return -1;
        if (last)
            return 0;
    }
}

const char ms_sleep_doc[] =
"sleep(seconds, tolerance=5e-05)\n--\n\n"
"Sleeps `seconds` (int or float, >= 0) on CLOCK_MONOTONIC, waking no\n"
"earlier and at most `tolerance` seconds later where the machine allows.\n"
"Releases the GIL; signal handlers run at least every 50 ms.";

PyObject *ms_sleep(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"seconds", "tolerance", NULL};
    PyObject *argv[2];
    int64_t duration, tolerance = MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS;
    ms_state *st = PyModule_GetState(module);
    if (ms_parse_args("sleep", args, nargs, kwnames, names, 2, 1, argv) < 0 ||
        ms_seconds_arg(argv[0], "seconds", &duration) < 0 ||
        (argv[1] != NULL && ms_seconds_arg(argv[1], "tolerance", &tolerance) < 0))
        return NULL;
    if (duration < 0 || tolerance < 0)
        return raise_core(st, MONOSTAMP_EINVAL, NULL,
                          "sleep(%R, tolerance=%R): seconds and tolerance must be >= 0",
                          argv[0], argv[1] != NULL ? argv[1] : Py_None);
    int64_t now = monostamp_monotonic_ns();
    if (duration > INT64_MAX - now)
        return raise_core(st, MONOSTAMP_ERANGE, NULL, "sleep(%R): the deadline is out of range",
                          argv[0]);
    if (ms_sleep_until(st, now + duration, tolerance, "sleep", argv[0]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

const char ms_sleep_until_ns_doc[] =
"sleep_until_ns(deadline_ns, tolerance_ns=50000)\n--\n\n"
"Sleeps until monotonic_ns() reaches deadline_ns (a past one returns at\n"
"once), waking at most tolerance_ns later where the machine allows.\n"
"Releases the GIL.";

PyObject *ms_sleep_until_ns(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    static const char *const names[] = {"deadline_ns", "tolerance_ns", NULL};
    PyObject *argv[2];
    int64_t deadline, tolerance = MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS;
    ms_state *st = PyModule_GetState(module);
    if (ms_parse_args("sleep_until_ns", args, nargs, kwnames, names, 2, 1, argv) < 0 ||
        ms_int64_arg(argv[0], "deadline_ns", &deadline) < 0 ||
        (argv[1] != NULL && ms_int64_arg(argv[1], "tolerance_ns", &tolerance) < 0))
        return NULL;
    if (tolerance < 0)
        return raise_core(st, MONOSTAMP_EINVAL, NULL,
                          "sleep_until_ns(): tolerance_ns=%R must be >= 0", argv[1]);
    if (ms_sleep_until(st, deadline, tolerance, "sleep_until_ns", argv[0]) < 0)
        return NULL;
    Py_RETURN_NONE;
}
