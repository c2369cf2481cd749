/*
 * patch_functions.c: the module functions monostamp/_patching.py calls
 * (_activate, _deactivate, _installed, _foreign, _adopt), each under its
 * lock, and the patch's part of the module's exec slot.  The work is done by patch_swap.c, the
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
        if (st->default_clock == NULL)
            return ms_default_clock_error(st);
        ms_clock_core(st->default_clock, &clock);
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

const char ms_patch_adopt_doc[] =
"_adopt(witness, /)\n--\n\n"
"time-machine before 3.0 leaves its pass-through functions in the tables\n"
"after its first travel: takes them as the originals, if each lives in the\n"
"binary of `witness` (a C function of time-machine's).  Returns how many\n"
"targets were taken; nothing while the patch is installed.";

PyObject *ms_patch_adopt(PyObject *module, PyObject *witness)
{
    (void)module;
    if (!PyCFunction_Check(witness)) {
        ms_type_error("_adopt(): witness", "a built-in function", witness);
        return NULL;
    }
    return PyLong_FromLong(ms_patch_adopt_originals(PyCFunction_GetFunction(witness)));
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

int ms_patch_exec(void)
{
    if (ms_patch_datetime_import() < 0)
        return -1;
    return ms_patch_swap_init();
}
