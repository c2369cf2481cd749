/*
 * sleep.c: sleep() and sleep_until_ns(), the core's precise naps with a
 * finish in Python (monostamp/_sleep.py).
 *
 * The core wakes within a fraction of a us of its deadline, but Python's
 * code after a long sleep runs tens of us later: the interpreter's way back
 * is cold (issue 23, docs/sleep.md).  A sleep's contract is about the
 * caller's code running, so both functions check their arguments here and
 * hand the deadline to the finish that monostamp/_sleep.py registers: it
 * has the core sleep to a learned lead before the deadline
 * (_sleep_until_core) and spins the rest in Python.  Until one is
 * registered (the extension imported without its package), the core
 * sleeps alone, as before.
 *
 * sleep() reads the clock before anything else: whatever runs between the
 * caller's call and that reading is lateness the caller sees, and after a
 * long sleep elsewhere this path is cold (checking the arguments first
 * cost 2-3 us here at 3 and 30 ms; a Python sleep() that read the clock
 * first, ~1 us more than this).
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

/* Sleeps to a checked deadline: through the registered finish, or the
 * core alone. */
static PyObject *sleep_to(ms_state *st, int64_t deadline_ns, int64_t tolerance_ns,
                          const char *call, PyObject *arg)
{
    PyObject *finish = st->sleep_finish;
    if (finish == NULL) {
        if (ms_sleep_until(st, deadline_ns, tolerance_ns, call, arg) < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    PyObject *args[2] = {PyLong_FromLongLong(deadline_ns), PyLong_FromLongLong(tolerance_ns)};
    PyObject *result = NULL;
    if (args[0] != NULL && args[1] != NULL) {
        Py_INCREF(finish); /* a re-registration during the call cannot free it */
        result = PyObject_Vectorcall(finish, args, 2, NULL);
        Py_DECREF(finish);
    }
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    return result;
}

const char ms_sleep_doc[] =
"sleep(seconds, tolerance=5e-05)\n--\n\n"
"Sleeps `seconds` (int or float, >= 0) on CLOCK_MONOTONIC: the caller's\n"
"code runs no earlier and at most `tolerance` seconds later where the\n"
"machine allows.  The GIL is released while the core sleeps; the last\n"
"15-250 us (a learned lead) are a Python spin that holds it, unless\n"
"`tolerance` covers them.  Signal handlers run at least every 50 ms and\n"
"during the spin.";

PyObject *ms_sleep(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    int64_t now = monostamp_monotonic_ns(); /* first: see the top of the file */
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
    if (duration > INT64_MAX - now)
        return raise_core(st, MONOSTAMP_ERANGE, NULL, "sleep(%R): the deadline is out of range",
                          argv[0]);
    return sleep_to(st, now + duration, tolerance, "sleep", argv[0]);
}

/* sleep_until_ns()'s arguments, shared with _sleep_until_core.  Returns 0,
 * or -1 with the error set. */
static int until_args(ms_state *st, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      int64_t *deadline, int64_t *tolerance, PyObject **arg0)
{
    static const char *const names[] = {"deadline_ns", "tolerance_ns", NULL};
    PyObject *argv[2];
    *tolerance = MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS;
    if (ms_parse_args("sleep_until_ns", args, nargs, kwnames, names, 2, 1, argv) < 0 ||
        ms_int64_arg(argv[0], "deadline_ns", deadline) < 0 ||
        (argv[1] != NULL && ms_int64_arg(argv[1], "tolerance_ns", tolerance) < 0))
        return -1;
    if (*tolerance < 0) {
        raise_core(st, MONOSTAMP_EINVAL, NULL, "sleep_until_ns(): tolerance_ns=%R must be >= 0",
                   argv[1]);
        return -1;
    }
    *arg0 = argv[0];
    return 0;
}

const char ms_sleep_until_ns_doc[] =
"sleep_until_ns(deadline_ns, tolerance_ns=50000)\n--\n\n"
"Sleeps until monotonic_ns() reaches deadline_ns (a past one returns at\n"
"once): the caller's code runs at most tolerance_ns later where the\n"
"machine allows.  Releases the GIL but for the spin, as sleep().";

PyObject *ms_sleep_until_ns(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    int64_t deadline, tolerance;
    PyObject *arg0;
    ms_state *st = PyModule_GetState(module);
    if (until_args(st, args, nargs, kwnames, &deadline, &tolerance, &arg0) < 0)
        return NULL;
    return sleep_to(st, deadline, tolerance, "sleep_until_ns", arg0);
}

const char ms_sleep_until_core_doc[] =
"_sleep_until_core(deadline_ns, tolerance_ns=50000)\n--\n\n"
"sleep_until_ns() without the finish: the core's sleep alone, which\n"
"returns at most tolerance_ns after deadline_ns where the machine allows,\n"
"though the caller's code runs later.  Private: monostamp/_sleep.py, and\n"
"the benchmark's baseline (the path every sleep took before the finish).";

PyObject *ms_sleep_until_core(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    int64_t deadline, tolerance;
    PyObject *arg0;
    ms_state *st = PyModule_GetState(module);
    if (until_args(st, args, nargs, kwnames, &deadline, &tolerance, &arg0) < 0 ||
        ms_sleep_until(st, deadline, tolerance, "sleep_until_ns", arg0) < 0)
        return NULL;
    Py_RETURN_NONE;
}

const char ms_sleep_finish_doc[] =
"_sleep_finish(finish)\n--\n\n"
"Registers finish(deadline_ns, tolerance_ns), which sleep() and\n"
"sleep_until_ns() call with their checked arguments; None unregisters.\n"
"Private: monostamp/_sleep.py.";

PyObject *ms_sleep_finish(PyObject *module, PyObject *finish)
{
    ms_state *st = PyModule_GetState(module);
    if (finish != Py_None && !PyCallable_Check(finish))
        return PyErr_Format(PyExc_TypeError, "_sleep_finish(): finish must be callable, not %.100s",
                            Py_TYPE(finish)->tp_name);
    PyObject *old = st->sleep_finish;
    st->sleep_finish = finish == Py_None ? NULL : Py_NewRef(finish);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}
