/*
 * default_clock.c: the module's functions on the process's default clock.
 *
 * The default clock is one monostamp.Clock object per module (made by the
 * exec slot: ms_clock_default_new), wrapping the core's default clock; if
 * that is unusable (a bad MONOSTAMP_SHARED file) there is none, and each
 * function raises the core's error.
 * monostamp.now(), time_ns(), time(), now_datetime(), uuid7(), take(),
 * get_policy() and set_policy() are its methods, called through one-line
 * forwards: the Clock's code is the only code.  They are forwards and not
 * bound methods (as random.py binds random = _inst.random) because a bound
 * method's name is the type's, "Clock.now()", in the interpreter's own
 * messages ("now() takes no keyword arguments"), and the docstrings here
 * say what the functions are: the default clock's.
 */
#include "module.h"

#define DEFAULT(module) (((ms_state *)PyModule_GetState(module))->default_clock)

/* Raises the error that makes the core's default clock unusable: there
 * is no default Clock then.  Apart, so that each forward is two tail
 * calls and no frame of its own. */
static PyObject *unusable(PyObject *module)
{
    return ms_default_clock_error((ms_state *)PyModule_GetState(module));
}

static PyObject *now(PyObject *module, PyObject *unused)
{
    PyObject *clock = DEFAULT(module);
    return clock != NULL ? ms_clock_now(clock, unused) : unusable(module);
}

static PyObject *time_ns(PyObject *module, PyObject *unused)
{
    PyObject *clock = DEFAULT(module);
    return clock != NULL ? ms_clock_time_ns(clock, unused) : unusable(module);
}

static PyObject *time_(PyObject *module, PyObject *unused)
{
    PyObject *clock = DEFAULT(module);
    return clock != NULL ? ms_clock_time(clock, unused) : unusable(module);
}

static PyObject *now_datetime(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    PyObject *clock = DEFAULT(module);
    return clock != NULL ? ms_clock_now_datetime(clock, args, nargs, kwnames) : unusable(module);
}

static PyObject *uuid7(PyObject *module, PyObject *unused)
{
    PyObject *clock = DEFAULT(module);
    return clock != NULL ? ms_clock_uuid7(clock, unused) : unusable(module);
}

static PyObject *take(PyObject *module, PyObject *n)
{
    PyObject *clock = DEFAULT(module);
    return clock != NULL ? ms_clock_take(clock, n) : unusable(module);
}

static PyObject *get_policy(PyObject *module, PyObject *unused)
{
    PyObject *clock = DEFAULT(module);
    (void)unused;
    return clock != NULL ? ms_clock_get_policy(clock, NULL) : unusable(module);
}

static PyObject *set_policy(PyObject *module, PyObject *policy)
{
    ms_state *st = (ms_state *)PyModule_GetState(module);
    int unused;
    /* A bad policy is named first, as the Clock's setter would. */
    if (st->default_clock == NULL &&
        ms_policy_arg(st, policy, "set_policy(): policy", &unused) == 0)
        return ms_default_clock_error(st);
    if (st->default_clock == NULL || ms_clock_set_policy(st->default_clock, policy, NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(now_doc,
"now()\n--\n\n"
"The next Stamp from the process's default clock: realtime source, local\n"
"zone, the policy set_policy() chose; shared with fork()ed children, and\n"
"with every process whose MONOSTAMP_SHARED names the same file.");

PyDoc_STRVAR(time_ns_doc,
"time_ns()\n--\n\n"
"The default clock's next stamp, int ns since the epoch only: like\n"
"time.time_ns(), but unique and monotonic under the default policy.");

PyDoc_STRVAR(time_doc,
"time()\n--\n\n"
"The default clock's next stamp as float seconds, like time.time(), but\n"
"drawn at whole-µs grain so that every value is unique (one sequence\n"
"with now() and time_ns()).");

PyDoc_STRVAR(now_datetime_doc,
"now_datetime(tz=None)\n--\n\n"
"The default clock's next stamp as an aware datetime.datetime at the\n"
"local offset, or converted to tz: drawn at whole-µs grain, so unique.");

PyDoc_STRVAR(uuid7_doc,
"uuid7()\n--\n\n"
"A uuid.UUID of version 7 made from the default clock's next stamp:\n"
"48-bit Unix ms, the sub-ms part as a 20-bit fraction (12 bits in\n"
"RFC 9562's method-3 place, 8 after the variant), 54 random bits.\n"
"Increasing wherever the stamps are (threads, fork, processes on one\n"
"MONOSTAMP_SHARED file); uuid7_ns() gives the stamp back.");

PyDoc_STRVAR(take_doc,
"take(n, /)\n--\n\n"
"Reserves n consecutive stamps of the default clock with one atomic\n"
"step and returns them as range(first, stop, step): step 1 ns, or\n"
"1000 under MONOTONIC_FORCE_MICROSECOND_INCREMENT.  No other stamp of\n"
"the clock (in any thread or process sharing it) falls among them.\n"
"ValueError for n < 1, a block past int64, or a policy that allows\n"
"equal stamps; LeadError for a block longer than max_lead_ns (the\n"
"clock is then unchanged).");

PyDoc_STRVAR(get_policy_doc,
"get_policy()\n--\n\n"
"The default clock's Policy (Squeak's `Time clockPolicy`).");

PyDoc_STRVAR(set_policy_doc,
"set_policy(policy, /)\n--\n\n"
"Sets this process's default clock's Policy (a Policy or its name) for\n"
"its next stamp.  The policy is the process's own: other processes\n"
"sharing the clock's state (fork() children after the call excepted,\n"
"which inherit it) keep theirs.");

PyMethodDef ms_default_functions[] = {
    {"now", now, METH_NOARGS, now_doc},
    {"time_ns", time_ns, METH_NOARGS, time_ns_doc},
    {"time", time_, METH_NOARGS, time_doc},
    {"now_datetime", (PyCFunction)(void (*)(void))now_datetime, METH_FASTCALL | METH_KEYWORDS,
     now_datetime_doc},
    {"uuid7", uuid7, METH_NOARGS, uuid7_doc},
    {"take", take, METH_O, take_doc},
    {"get_policy", get_policy, METH_NOARGS, get_policy_doc},
    {"set_policy", set_policy, METH_O, set_policy_doc},
    {NULL, NULL, 0, NULL},
};
