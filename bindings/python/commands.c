/* commands.c: what the package's commands ask the core (monostamp_host.h):
 * monostamp run's private directories (the name this runner's starts with,
 * the sweep of those whose runner is gone) and the line of a state file's
 * counts (the pytest plugin's summary, monostamp stats, monostamp run --report). */
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
        return raise_core((ms_state *)PyModule_GetState(module), n, parent,
                          "_run_dirs_sweep(%R)", parent);
    return PyLong_FromLong(n);
}

/* A (stamps, repeats, backward_steps, largest_lead_ns) tuple, as
 * _state_counts gives it: 0, or -1 with TypeError or OverflowError. */
static int counts_arg(PyObject *obj, monostamp_counts *out)
{
    unsigned long long stamps, repeats, backward;
    long long lead;
    if (!PyTuple_Check(obj) ||
        !PyArg_ParseTuple(obj, "KKKL", &stamps, &repeats, &backward, &lead)) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError))
            PyErr_Format(PyExc_TypeError, "_counts_text(): counts must be a tuple "
                         "(stamps, repeats, backward_steps, largest_lead_ns), not %R", obj);
        return -1;
    }
    *out = (monostamp_counts){stamps, repeats, backward, lead};
    return 0;
}

PyDoc_STRVAR(counts_text_doc, "_counts_text($module, after, before=None, /)\n--\n\n"
"The line of what a state file's clocks counted between the counts before\n"
"(None: none) and after, each a _state_counts tuple.");

static PyObject *counts_text(PyObject *Py_UNUSED(module), PyObject *const *args,
                             Py_ssize_t nargs)
{
    monostamp_counts after, before;
    char buf[256];
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "_counts_text() takes 1 or 2 arguments (%zd given)",
                     nargs);
        return NULL;
    }
    int has_before = nargs == 2 && args[1] != Py_None;
    if (counts_arg(args[0], &after) < 0 || (has_before && counts_arg(args[1], &before) < 0))
        return NULL;
    int n = monostamp_counts_text(has_before ? &before : NULL, &after, buf, sizeof buf);
    return n < 0 ? PyErr_Format(PyExc_RuntimeError, "_counts_text(): code %d", n)
                 : PyUnicode_FromStringAndSize(buf, n);
}

PyMethodDef ms_run_functions[] = {
    {"_counts_text", (PyCFunction)(void (*)(void))counts_text, METH_FASTCALL, counts_text_doc},
    {"_run_dir_prefix", run_dir_prefix, METH_NOARGS, run_dir_prefix_doc},
    {"_run_dirs_sweep", run_dirs_sweep, METH_O, run_dirs_sweep_doc},
    {NULL, NULL, 0, NULL},
};
