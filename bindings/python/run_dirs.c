/* run_dirs.c: monostamp run's private directories (monostamp_host.h),
 * for monostamp/_run.py: the name this runner's starts with, and the sweep
 * of those whose runner is gone. */
#include "module.h"

PyDoc_STRVAR(run_dir_prefix_doc, "_run_dir_prefix($module, /)\n--\n\n"
"The name this process's runner directory starts with (mkdtemp's prefix).");

static PyObject *run_dir_prefix(PyObject *module, PyObject *Py_UNUSED(ignored))
{
    char buf[96];
    int n = monostamp_run_dir_prefix(buf, sizeof buf);
    if (n < 0)
        return raise_core((ms_state *)PyModule_GetState(module), n, NULL, "_run_dir_prefix()");
    return PyUnicode_FromStringAndSize(buf, n); /* digits and "-" */
}

PyDoc_STRVAR(run_dirs_sweep_doc, "_run_dirs_sweep($module, parent, /)\n--\n\n"
"Removes the directories in parent of this user's runners that are gone;\n"
"returns how many.");

static PyObject *run_dirs_sweep(PyObject *module, PyObject *parent)
{
    PyObject *bytes;
    if (ms_path_arg(parent, "_run_dirs_sweep(): parent", &bytes) < 0)
        return NULL;
    int n = monostamp_run_dirs_sweep(PyBytes_AsString(bytes));
    Py_DECREF(bytes);
    if (n < 0)
        return raise_core((ms_state *)PyModule_GetState(module), n, parent, "_run_dirs_sweep(%R)", parent);
    return PyLong_FromLong(n);
}

PyMethodDef ms_run_functions[] = {
    {"_run_dir_prefix", run_dir_prefix, METH_NOARGS, run_dir_prefix_doc},
    {"_run_dirs_sweep", run_dirs_sweep, METH_O, run_dirs_sweep_doc},
    {NULL, NULL, 0, NULL},
};
