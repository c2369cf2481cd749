/*
 * module.c: the module monostamp._patch itself: the functions
 * monostamp/_patching.py calls (_activate, _deactivate, _installed,
 * _foreign, _targets), the exec slot and PyInit__patch, the one symbol the
 * extension exports.  The work is done by swap.c and the active clock's
 * record by active.c; patch.h tells the whole story.
 */
#include "patch.h"

/* ------------------------------------------------- the module functions */

PyDoc_STRVAR(activate_doc,
"_activate(clock, /)\n--\n\n"
"Makes `clock` (a monostamp.Clock, or None for the default clock) the one\n"
"the patched functions draw from, installing them first if they are not.\n"
"RuntimeError if another tool has replaced one of them.  Use\n"
"monostamp.patch(), which keeps the stack of nested patches.");

static PyObject *p_activate(PyObject *module, PyObject *clock_obj)
{
    monostamp_clock *clock;
    int may_wait;
    (void)module;
    if (ms_patch_api->clock_of(clock_obj, &clock, &may_wait) < 0)
        return NULL;
    active_clock *next = PyMem_RawMalloc(sizeof *next);
    if (next == NULL)
        return PyErr_NoMemory();
    Py_INCREF(clock_obj);
    *next = (active_clock){clock_obj, clock, may_wait, PyInterpreterState_Get()};

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

PyDoc_STRVAR(deactivate_doc,
"_deactivate()\n--\n\n"
"Puts the original functions back and forgets the active clock.");

static PyObject *p_deactivate(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    ms_patch_uninstall();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(installed_doc,
"_installed()\n--\n\n"
"True while the replacements are in the method tables.");

static PyObject *p_installed(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyBool_FromLong(ms_patch_installed());
}

PyDoc_STRVAR(foreign_doc,
"_foreign()\n--\n\n"
"The names of the patchable functions whose C function is neither the\n"
"original nor monostamp's: another tool (time-machine) has patched them.");

static PyObject *p_foreign(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return ms_patch_foreign_names();
}

PyDoc_STRVAR(targets_doc,
"_targets()\n--\n\n"
"The names of the functions a patch replaces.");

static PyObject *p_targets(PyObject *module, PyObject *unused)
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

static PyMethodDef patch_methods[] = {
    {"_activate", p_activate, METH_O, activate_doc},
    {"_deactivate", p_deactivate, METH_NOARGS, deactivate_doc},
    {"_foreign", p_foreign, METH_NOARGS, foreign_doc},
    {"_installed", p_installed, METH_NOARGS, installed_doc},
    {"_targets", p_targets, METH_NOARGS, targets_doc},
    {NULL, NULL, 0, NULL},
};

static int patch_exec(PyObject *module)
{
    (void)module;
    if (ms_patch_datetime_import() < 0)
        return -1;
    const ms_capi *capi = PyCapsule_Import(MS_CAPI_NAME, 0);
    if (capi == NULL)
        return -1;
    if (capi->version < MS_CAPI_VERSION || capi->size < sizeof(ms_capi)) {
        PyErr_Format(PyExc_ImportError,
                     "monostamp._patch needs the C API version %d of monostamp._monostamp, "
                     "which gives version %d",
                     MS_CAPI_VERSION, capi->version);
        return -1;
    }
    ms_patch_api = capi;
    return ms_patch_swap_init();
}

static PyModuleDef_Slot patch_slots[] = {
    {Py_mod_exec, patch_exec},
#ifdef Py_mod_multiple_interpreters
    /* The method tables and the saved originals are process-wide. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_mod_gil
    /* Its state is guarded by its own locks (see patch.h). */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(patch_doc,
"The C half of monostamp.patch(): replaces the C functions of time and\n"
"datetime while a patch is active.  Use monostamp.patch().");

static struct PyModuleDef patch_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_patch",
    .m_doc = patch_doc,
    .m_size = 0,
    .m_methods = patch_methods,
    .m_slots = patch_slots,
};

PyMODINIT_FUNC PyInit__patch(void);

PyMODINIT_FUNC PyInit__patch(void)
{
    return PyModuleDef_Init(&patch_module);
}
