/*
 * patch_functions.c: the module functions monostamp/_patching.py calls
 * (_activate, _deactivate, _installed, _foreign, _targets, _after_fork,
 * _hold_switch_lock) and the patch's
 * part of the module's exec slot.  The work is done by patch_swap.c, the
 * active clock's record by patch_active.c; patch.h tells the whole story.
 */
#include "patch.h"

const char ms_patch_activate_doc[] =
"_activate(clock, /)\n--\n\n"
"Makes `clock` (a monostamp.Clock, or None for the default clock) the one\n"
"the patched functions draw from, installing them first if they are not.\n"
"RuntimeError if another tool has replaced one of them, outside the main\n"
"interpreter, and on free-threaded builds.  Use monostamp.patch(), which\n"
"keeps the stack of nested patches.";

/* Where a patch may not start, the reason (patch.h: the ml_meth writes
 * are ordered by the one GIL of the main interpreter only), else NULL. */
static const char *unsupported_here(void)
{
#ifdef Py_GIL_DISABLED
    return "on a free-threaded build (its ml_meth writes would race with other threads' "
           "calls; not audited or tested there)";
#else
    if (PyInterpreterState_Get() != PyInterpreterState_Main())
        return "outside the main interpreter (the patched method tables are the process's)";
    return NULL;
#endif
}

PyObject *ms_patch_activate(PyObject *module, PyObject *clock_obj)
{
    ms_state *st = (ms_state *)PyModule_GetState(module);
    monostamp_clock *clock;
    int64_t bound = 0;
    const char *reason = unsupported_here();
    if (reason != NULL)
        return PyErr_Format(PyExc_RuntimeError, "monostamp.patch() cannot start %s", reason);
    if (clock_obj == Py_None) {
        if ((clock = st->default_clock) == NULL)
            return ms_default_clock_error(st);
        bound = MS_PATCH_MAX_LEAD_NS;
    } else if (!ms_clock_core(clock_obj, &clock)) {
        ms_type_error("clock", "a monostamp.Clock or None", clock_obj);
        return NULL;
    }
    active_clock *next = PyMem_RawMalloc(sizeof *next);
    if (next == NULL)
        return PyErr_NoMemory();
    Py_INCREF(clock_obj);
    *next = (active_clock){clock_obj, clock, PyInterpreterState_Get(), bound};

    ms_patch_fold_forget();
    int conflict = ms_patch_install(next);
    if (conflict >= 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "monostamp.patch() cannot start: %s is patched by another tool "
                     "(time-machine?); stop it first",
                     ms_patch_target_name(conflict));
        return NULL;
    }
    Py_RETURN_NONE;
}

const char ms_patch_deactivate_doc[] =
"_deactivate()\n--\n\n"
"Puts the original functions back and forgets the active clock.  Every\n"
"patched value was within the patch's lead bound of real time when it\n"
"was handed out, so no wait is needed.";

PyObject *ms_patch_deactivate(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    ms_patch_uninstall();
    Py_RETURN_NONE;
}

const char ms_patch_after_fork_doc[] =
"_after_fork()\n--\n\n"
"In a child of fork(): a new lock for the switches (the parent's may be\n"
"held by a thread the child does not have).  monostamp/_patching.py\n"
"registers it with os.register_at_fork.";

PyObject *ms_patch_after_fork(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    if (ms_patch_swap_after_fork() < 0)
        return NULL;
    Py_RETURN_NONE;
}

const char ms_patch_hold_switch_lock_doc[] =
"_hold_switch_lock(hold, /)\n--\n\n"
"Takes (True) or releases (False) the lock of the switches: for the test\n"
"of a fork while another thread is inside start() or stop().";

PyObject *ms_patch_hold_switch_lock(PyObject *module, PyObject *hold)
{
    (void)module;
    int h = PyObject_IsTrue(hold);
    if (h < 0)
        return NULL;
    ms_patch_swap_hold(h);
    Py_RETURN_NONE;
}

const char ms_patch_installed_doc[] =
"_installed()\n--\n\n"
"True while the replacements are in the method tables.";

PyObject *ms_patch_is_installed(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyBool_FromLong(ms_patch_installed());
}

const char ms_patch_foreign_doc[] =
"_foreign()\n--\n\n"
"The names of the patchable functions whose C function is neither the\n"
"original nor monostamp's: another tool (time-machine) has patched them.";

PyObject *ms_patch_foreign(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return ms_patch_foreign_names();
}

const char ms_patch_targets_doc[] =
"_targets()\n--\n\n"
"The names of the functions a patch replaces.";

PyObject *ms_patch_targets(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *names = PyTuple_New(T_COUNT);
    for (int t = 0; names != NULL && t < T_COUNT; t++) {
        PyObject *name = PyUnicode_FromString(ms_patch_target_name(t));
        if (name == NULL)
            Py_CLEAR(names);
        else
            PyTuple_SET_ITEM(names, t, name);
    }
    return names;
}

int ms_patch_exec(void)
{
    if (ms_patch_datetime_import() < 0)
        return -1;
    return ms_patch_swap_init();
}
