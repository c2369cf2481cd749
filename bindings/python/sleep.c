/* sleep.c: sleep() and sleep_until_ns(): the core's plan (docs/sleep.md)
 * from Python: naps of at most 50 ms, the GIL released and the signal
 * handlers run between them, then monostamp/_sleep.py's finish spins in
 * Python (without one, the extension imported alone, the core sleeps
 * alone).  sleep() reads the clock first: what runs before is lateness. */
#include "module.h"

#ifndef Py_BEGIN_CRITICAL_SECTION /* before 3.13: the GIL serializes */
#define Py_BEGIN_CRITICAL_SECTION(op) {
#define Py_END_CRITICAL_SECTION() }
#endif

/* The plan a sleep hands its finish.  Kept for the next sleep rather than
 * freed after this one: freeing touched cold memory between the deadline
 * and the caller's code.  It holds the deadline's int that its sleep gave
 * the finish for the same reason: freed after the spin, that int (made
 * before the naps, its memory cold) cost the caller its dealloc after the
 * deadline; held, it is freed when the plan is next taken, before that
 * sleep's naps, or with the plan. */
typedef struct {
    PyObject_HEAD
    monostamp_sleep_plan plan;
    PyObject *deadline;
} plan_object;

static PyObject *plan_step(PyObject *self, PyObject *arg)
{
    int64_t now;
    int what;
    if (ms_int64_arg(arg, "now_ns", &now) < 0)
        return NULL;
    Py_BEGIN_CRITICAL_SECTION(self);
    what = monostamp_sleep_step(&((plan_object *)self)->plan, now);
    Py_END_CRITICAL_SECTION();
    return PyBool_FromLong(what == MONOSTAMP_SLEEP_WARM);
}

static void plan_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    Py_XDECREF(((plan_object *)self)->deadline);
    PyObject_Free(self);
    Py_DECREF(type);
}

static PyMethodDef plan_methods[] = {
    {"step", plan_step, METH_O,
     "step(now_ns)\n--\n\nThe next step from Python's first reading: True to warm and spin."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot plan_slots[] = {
    {Py_tp_dealloc, plan_dealloc},
    {Py_tp_methods, plan_methods},
    {0, NULL},
};

PyType_Spec ms_sleep_plan_spec = {
    .name = "monostamp._monostamp._SleepPlan",
    .basicsize = sizeof(plan_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = plan_slots,
};

/* Sleeps to a checked deadline from `now_ns`, the first reading. */
static PyObject *sleep_to(ms_state *st, int64_t deadline_ns, int64_t tolerance_ns, int64_t now_ns,
                          const char *call, PyObject *arg)
{
    PyObject *finish = st->sleep_finish, *deadline = NULL, *result = NULL;
    plan_object *held = NULL;
    monostamp_sleep_plan alone, *plan = &alone;
    int what = monostamp_sleep_begin(plan, deadline_ns, tolerance_ns, now_ns, finish != NULL);
    if (finish != NULL) {
        if ((deadline = PyLong_FromLongLong(deadline_ns)) == NULL)
            return NULL;
        if (what == MONOSTAMP_SLEEP_NAP) {
            held = (plan_object *)atomic_exchange(&st->sleep_plan_spare, NULL);
            if (held == NULL) {
                if ((held = PyObject_New(plan_object, st->sleep_plan_type)) == NULL)
                    goto out;
                held->deadline = NULL;
            }
            held->plan = alone;
            plan = &held->plan;
            /* The plan takes this sleep's int (see plan_object); the last
             * sleep's is freed now, before the naps. */
            Py_XSETREF(held->deadline, deadline);
            deadline = NULL;
        }
    }
    while (what == MONOSTAMP_SLEEP_NAP) {
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = monostamp_sleep_until(plan->until_ns, plan->until_tolerance_ns);
        Py_END_ALLOW_THREADS
        if (rc != MONOSTAMP_OK) {
            raise_core(st, rc, NULL, "%s(%R)", call, arg);
            goto out;
        }
        if (PyErr_CheckSignals() < 0)
            goto out;
        if (plan->last_nap && held != NULL)
            break; /* the finish takes the next reading, in Python */
        what = monostamp_sleep_step(plan, monostamp_monotonic_ns());
    }
    if (finish == NULL) {
        result = Py_NewRef(Py_None);
    } else {
        PyObject *args[2] = {held != NULL ? held->deadline : deadline,
                             held != NULL ? (PyObject *)held : Py_None};
        Py_INCREF(finish); /* a re-registration during the call cannot free it */
        result = PyObject_Vectorcall(finish, args, 2, NULL);
        Py_DECREF(finish);
    }
out:
    if (held != NULL) {
        PyObject *none = NULL;
        if (Py_REFCNT(held) != 1 ||
            !atomic_compare_exchange_strong(&st->sleep_plan_spare, &none, (PyObject *)held))
            Py_DECREF(held);
    }
    Py_XDECREF(deadline);
    return result;
}

void ms_sleep_clear(ms_state *st)
{
    Py_XDECREF(atomic_exchange(&st->sleep_plan_spare, NULL));
    Py_CLEAR(st->sleep_plan_type);
}

PyDoc_STRVAR(sleep_doc, "sleep(seconds, tolerance=5e-05)\n--\n\n"
"Sleeps `seconds` (int or float, >= 0) on CLOCK_MONOTONIC: the caller's\n"
"code runs no earlier and at most `tolerance` s later where the machine\n"
"allows.  The GIL is released but for a last 15-250 us spin (see \"Precise\n"
"sleep\" in the monostamp docs).");

static PyObject *ms_sleep(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    int64_t now = monostamp_monotonic_ns(); /* first: see the top */
    static const char *const names[] = {"seconds", "tolerance", NULL};
    PyObject *argv[2];
    int64_t duration, tolerance = MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS;
    ms_state *st = PyModule_GetState(module);
    if (ms_parse_args("sleep", args, nargs, kwnames, names, 2, 1, argv) < 0 ||
        ms_seconds_arg(argv[0], "sleep(): seconds", &duration) < 0 ||
        (argv[1] != NULL && ms_seconds_arg(argv[1], "sleep(): tolerance", &tolerance) < 0))
        return NULL;
    /* The core's rule and words; a sign's in seconds, as given. */
    int64_t deadline;
    int bad = 0;
    char why[96];
    int rc = monostamp_sleep_deadline(now, duration, 1, tolerance, &deadline, &bad, why,
                                      sizeof why);
    if (rc == MONOSTAMP_EINVAL)
        return ms_rule_error(bad == 1 ? "sleep(): seconds" : "sleep(): tolerance",
                             MONOSTAMP_RULE_NOT_NEGATIVE, argv[bad - 1]), NULL;
    if (rc != 0)
        return ms_core_text(PyExc_ValueError, "sleep()", why);
    return sleep_to(st, deadline, tolerance, now, "sleep", argv[0]);
}

PyDoc_STRVAR(sleep_until_ns_doc, "sleep_until_ns(deadline_ns, tolerance_ns=50000)\n--\n\n"
"Sleeps until monotonic_ns() reaches deadline_ns, as sleep() does.");

static PyObject *sleep_until_ns(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *const names[] = {"deadline_ns", "tolerance_ns", NULL};
    PyObject *argv[2];
    int64_t deadline, tolerance = MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS;
    ms_state *st = PyModule_GetState(module);
    if (ms_parse_args("sleep_until_ns", args, nargs, kwnames, names, 2, 1, argv) < 0 ||
        ms_int64_arg(argv[0], "sleep_until_ns(): deadline_ns", &deadline) < 0 ||
        (argv[1] != NULL &&
         ms_int64_arg(argv[1], "sleep_until_ns(): tolerance_ns", &tolerance) < 0))
        return NULL;
    int64_t now = monostamp_monotonic_ns();
    char why[96];
    if (monostamp_sleep_deadline(now, deadline, 0, tolerance, &deadline, NULL, why,
                                 sizeof why) != 0)
        return ms_core_text(PyExc_ValueError, "sleep_until_ns()", why);
    return sleep_to(st, deadline, tolerance, now, "sleep_until_ns", argv[0]);
}

PyDoc_STRVAR(sleep_finish_doc, "_sleep_finish(finish)\n--\n\n"
"Registers monostamp/_sleep.py's finish(deadline_ns, plan or None), which\n"
"sleeps call after the core's part; None unregisters.");

static PyObject *sleep_finish(PyObject *module, PyObject *finish)
{
    ms_state *st = PyModule_GetState(module);
    if (finish != Py_None && !PyCallable_Check(finish))
        return ms_type_error("_sleep_finish(): finish", "callable", finish), NULL;
    PyObject *old = st->sleep_finish;
    st->sleep_finish = finish == Py_None ? NULL : Py_NewRef(finish);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

PyMethodDef ms_sleep_functions[] = {
    {"sleep", FASTCALL_KW(ms_sleep), sleep_doc},
    {"sleep_until_ns", FASTCALL_KW(sleep_until_ns), sleep_until_ns_doc},
    {"_sleep_finish", sleep_finish, METH_O, sleep_finish_doc},
    {NULL, NULL, 0, NULL},
};
