/* stamps.c: an extension of its own that draws monostamp's stamps from C
 * through the C API (monostamp_capi.h, found by monostamp.get_include()).
 * Under monostamp.patch() its stamps and the patched time.time_ns() are
 * one increasing sequence.  Build: pip install . (or python setup.py
 * build_ext --inplace) in this folder, with monostamp installed.
 *
 *     >>> import monostamp, stamps
 *     >>> with monostamp.patch():
 *     ...     a, b, c = time.time_ns(), stamps.time_ns(), time.time_ns()
 *     >>> a < b < c
 *     True
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <monostamp_capi.h>

static PyObject *stamps_time_ns(PyObject *module, PyObject *unused)
{
    int64_t ns;
    if (MonostampAPI->time_ns(&ns) < 0)
        return NULL;
    return PyLong_FromLongLong(ns);
}

static PyObject *stamps_now(PyObject *module, PyObject *unused)
{
    int64_t ns;
    int32_t offset_s;
    if (MonostampAPI->now(&ns, &offset_s) < 0)
        return NULL;
    return Py_BuildValue("(Li)", (long long)ns, (int)offset_s);
}

/* n stamps drawn in one C loop, as a list. */
static PyObject *stamps_many(PyObject *module, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n < 0) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "many(): n must be >= 0, not %zd", n);
        return NULL;
    }
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        int64_t ns;
        PyObject *item = MonostampAPI->time_ns(&ns) < 0 ? NULL : PyLong_FromLongLong(ns);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyMethodDef stamps_methods[] = {
    {"time_ns", stamps_time_ns, METH_NOARGS, "time_ns()\n--\n\nThe next stamp as int ns."},
    {"now", stamps_now, METH_NOARGS, "now()\n--\n\nThe next stamp as (ns, UTC offset in s)."},
    {"many", stamps_many, METH_O, "many(n, /)\n--\n\nn stamps drawn in one C loop."},
    {NULL, NULL, 0, NULL},
};

static int stamps_exec(PyObject *module)
{
    MonostampCAPI_IMPORT;
    if (MonostampAPI == NULL)
        return -1;
    if (MonostampAPI->version < 1) {
        PyErr_SetString(PyExc_ImportError, "stamps needs monostamp's C API version 1 or later");
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot stamps_slots[] = {
    {Py_mod_exec, (void *)stamps_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef stamps_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "stamps",
    .m_doc = "monostamp's stamps drawn from C, through monostamp_capi.h.",
    .m_size = 0,
    .m_methods = stamps_methods,
    .m_slots = stamps_slots,
};

PyMODINIT_FUNC PyInit_stamps(void)
{
    return PyModuleDef_Init(&stamps_module);
}
