/* module.c: the _monostamp module (multi-phase init, module state, heap
 * types): its own functions, the exec slot and the definition.  The package
 * re-exports its objects as they are: now() is one C call and one object. */
#include "module.h"
#include "patch.h"

#include <stdio.h>
#include <string.h>

#define STATE(module) ((ms_state *)PyModule_GetState(module))

PyDoc_STRVAR(clock_info_doc, "clock_info(source, /)\n--\n\n"
"Facts about a source as a dict (monostamp.clock_info's namespace).");

static PyObject *ms_clock_info(PyObject *module, PyObject *arg)
{
    ms_state *st = STATE(module);
    monostamp_clock_info info;
    int source;
    if (ms_option_arg(arg, "clock_info(): source", "source", "str", &source) < 0)
        return NULL;
    int rc = monostamp_clock_info_get(source, &info);
    if (rc == MONOSTAMP_ENOTSUP)
        return raise_core(st, rc, NULL, "source %R is not available on this platform", arg);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "clock_info(%R)", arg);
    return Py_BuildValue("{s:s,s:s,s:d,s:L,s:O,s:O}", "name", info.name, "implementation",
                         info.implementation, "resolution", (double)info.resolution_ns * 1e-9,
                         "resolution_ns", (long long)info.resolution_ns, "adjustable",
                         info.adjustable ? Py_True : Py_False, "monotonic",
                         info.monotonic ? Py_True : Py_False);
}

PyDoc_STRVAR(zone_changed_doc, "zone_changed()\n--\n\n"
"Says that TZ or the local zone file changed (else seen within a second).");

static PyObject *ms_zone_changed(PyObject *module, PyObject *unused)
{
    monostamp_zone_changed();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(create_state_file_doc, "create_state_file(path, /, *, trust_group=False)\n--\n\n"
"Creates a state file at path whose sequence starts at the wall clock, not\n"
"a lead bound ahead: only in a directory made for this sequence, where no\n"
"earlier one handed out stamps.  FileExistsError if path exists.");

static PyObject *ms_create_state_file(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"", "trust_group", NULL};
    PyObject *path, *trust = Py_False, *bytes;
    int trust_group;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$O:create_state_file", keywords, &path,
                                     &trust) ||
        ms_bool_arg(trust, "create_state_file(): trust_group", &trust_group) < 0 ||
        ms_path_arg(path, "create_state_file(): path", &bytes) < 0)
        return NULL;
    int rc = monostamp_state_file_create(PyBytes_AsString(bytes), trust_group);
    if (rc != MONOSTAMP_OK && monostamp_state_file_fault(rc))
        ms_state_file_error(STATE(module), "create_state_file()", "path", rc, path,
                            PyBytes_AsString(bytes));
    else if (rc != MONOSTAMP_OK)
        raise_core(STATE(module), rc, path, "create_state_file(%R)", path);
    Py_DECREF(bytes);
    return rc == MONOSTAMP_OK ? Py_NewRef(Py_None) : NULL;
}

PyDoc_STRVAR(state_file_info_doc, "_state_file_info(path, /)\n--\n\n"
"(last_ns, max_lead_ns, joins) of the state file at path, read without\n"
"creating or changing it (monostamp run asks whether anything joined).");

static PyObject *ms_state_file_info(PyObject *module, PyObject *path)
{
    monostamp_state_info info;
    PyObject *bytes;
    if (ms_path_arg(path, "_state_file_info(): path", &bytes) < 0)
        return NULL;
    int rc = monostamp_state_file_info(PyBytes_AsString(bytes), &info);
    /* Not create_state_file's hint for a missing directory: it says the
     * file would be created, and this reads only. */
    if (rc != MONOSTAMP_OK)
        raise_core(STATE(module), rc, path, "_state_file_info(%R)", path);
    Py_DECREF(bytes);
    if (rc != MONOSTAMP_OK)
        return NULL;
    return Py_BuildValue("(LLL)", (long long)info.last_ns, (long long)info.max_lead_ns,
                         (long long)info.joins);
}

PyDoc_STRVAR(state_counts_doc, "_state_counts(path, /)\n--\n\n"
"(stamps, repeats, backward_steps, largest_lead_ns) the clocks on the\n"
"state file at path counted and published, read without changing it\n"
"(the pytest plugin's summary, monostamp stats, monostamp run --report).");

static PyObject *ms_state_counts(PyObject *module, PyObject *path)
{
    monostamp_counts counts;
    PyObject *bytes;
    if (ms_path_arg(path, "_state_counts(): path", &bytes) < 0)
        return NULL;
    int rc = monostamp_state_file_counts(PyBytes_AsString(bytes), &counts);
    if (rc != MONOSTAMP_OK)
        raise_core(STATE(module), rc, path, "_state_counts(%R)", path);
    Py_DECREF(bytes);
    if (rc != MONOSTAMP_OK)
        return NULL;
    return Py_BuildValue("(KKKL)", (unsigned long long)counts.stamps,
                         (unsigned long long)counts.repeats,
                         (unsigned long long)counts.backward_steps,
                         (long long)counts.largest_lead_ns);
}

/* monostamp_clock_publish of `clock` to the path in args (none, or None:
 * its own file): True, False for a clock that shares no file and was given
 * none, or an error. */
PyObject *ms_publish(ms_state *st, monostamp_clock *clock, PyObject *const *args,
                     Py_ssize_t nargs, const char *call)
{
    PyObject *path = nargs == 1 ? args[0] : Py_None, *bytes = NULL;
    if (nargs > 1)
        return PyErr_Format(PyExc_TypeError, "%s() takes at most 1 argument", call);
    char what[40];
    snprintf(what, sizeof what, "%s(): path", call);
    if (path != Py_None && ms_path_arg(path, what, &bytes) < 0)
        return NULL;
    int rc = monostamp_clock_publish(clock, bytes != NULL ? PyBytes_AsString(bytes) : NULL);
    Py_XDECREF(bytes);
    if (rc == MONOSTAMP_ENOTSUP && path == Py_None)
        return Py_NewRef(Py_False);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, path, "%s: %R", what, path);
    return Py_NewRef(Py_True);
}

PyDoc_STRVAR(publish_default_doc, "_publish_default(path=None, /)\n--\n\n"
"Adds what the default clock counted and has not published yet to the\n"
"counts of the state file at path (None: the file it shares); False if it\n"
"shares none and no path was given.");

static PyObject *ms_publish_default(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    monostamp_clock *clock;
    int rc = monostamp_default_clock(&clock);
    if (rc != MONOSTAMP_OK)
        return raise_core(STATE(module), rc, Py_None, "the default clock");
    return ms_publish(STATE(module), clock, args, nargs, "_publish_default");
}

PyDoc_STRVAR(monotonic_ns_doc, "monotonic_ns()\n--\n\n"
"CLOCK_MONOTONIC in int ns: the time base of sleep_until_ns().");

static PyObject *ms_monotonic_ns(PyObject *module, PyObject *unused)
{
    return PyLong_FromLongLong(monostamp_monotonic_ns());
}

static PyMethodDef ms_methods[] = {
    {"uuid7_ns", ms_uuid7_ns, METH_O, ms_uuid7_ns_doc},
    {"clock_info", ms_clock_info, METH_O, clock_info_doc},
    {"zone_changed", ms_zone_changed, METH_NOARGS, zone_changed_doc},
    {"monotonic_ns", ms_monotonic_ns, METH_NOARGS, monotonic_ns_doc},
    {"create_state_file", (PyCFunction)(void (*)(void))ms_create_state_file,
     METH_VARARGS | METH_KEYWORDS, create_state_file_doc},
    {"_state_file_info", ms_state_file_info, METH_O, state_file_info_doc},
    {"_state_counts", ms_state_counts, METH_O, state_counts_doc},
    {"_publish_default", (PyCFunction)(void (*)(void))ms_publish_default, METH_FASTCALL,
     publish_default_doc},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------------ the exec */

/* The core's policies as ((constant, name), ...) by their number, for
 * monostamp/_policy.py to make Policy's members of: the core stays the one
 * owner of the names, and the package imports no enum (it costs more to
 * import than all of datetime). */
static PyObject *policy_pairs(void)
{
    int count = 0;
    while (monostamp_policy_name(count) != NULL)
        count++;
    PyObject *pairs = PyTuple_New(count);
    for (int p = 0; pairs != NULL && p < count; p++) {
        PyObject *pair = Py_BuildValue("(ss)", monostamp_policy_constant(p),
                                       monostamp_policy_name(p));
        if (pair == NULL)
            Py_CLEAR(pairs);
        else
            PyTuple_SET_ITEM(pairs, p, pair);
    }
    return pairs;
}

/* The members of monostamp._policy.Policy by the core's number, checked
 * against the core's names: a new reference, or NULL with an error. */
static PyObject *import_policies(void)
{
    PyObject *module = PyImport_ImportModule("monostamp._policy");
    PyObject *members = module != NULL ? PyObject_GetAttrString(module, "_MEMBERS") : NULL;
    Py_XDECREF(module);
    if (members == NULL)
        return NULL;
    int ok = PyTuple_Check(members);
    for (Py_ssize_t p = 0; ok && p < PyTuple_GET_SIZE(members); p++) {
        PyObject *m = PyTuple_GET_ITEM(members, p);
        const char *name = monostamp_policy_name((int)p);
        ok = name != NULL && PyUnicode_Check(m) && PyUnicode_CompareWithASCIIString(m, name) == 0;
    }
    if (!ok || monostamp_policy_name((int)PyTuple_GET_SIZE(members)) != NULL) {
        Py_DECREF(members);
        PyErr_SetString(PyExc_SystemError,
                        "monostamp: _policy._MEMBERS does not hold the core's policies in order");
        return NULL;
    }
    return members;
}

/* Imported on first need, not at exec: the package's __init__ imports
 * _policy after the extension, which _policy itself imports.  The import
 * may release the GIL (and free-threaded builds have none): of two threads
 * racing here, the first to publish wins and the other drops its tuple, so
 * every caller sees the same members. */
PyObject *ms_policy_members(ms_state *st)
{
    PyObject *members = atomic_load_explicit(&st->policies, memory_order_acquire);
    if (members != NULL)
        return members;
    PyObject *mine = import_policies(), *expected = NULL;
    if (mine == NULL)
        return NULL;
    if (atomic_compare_exchange_strong_explicit(&st->policies, &expected, mine,
                                                memory_order_acq_rel, memory_order_acquire))
        return mine;
    Py_DECREF(mine);
    return expected;
}

/* A class from `spec`, bound to the module, into the module and *out. */
static int exec_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out)
{
    PyObject *type = PyType_FromModuleAndSpec(module, spec, NULL);
    if (type == NULL)
        return -1;
    *out = (PyTypeObject *)type;
    const char *dot = strrchr(spec->name, '.');
    return PyModule_AddObjectRef(module, dot != NULL ? dot + 1 : spec->name, type);
}

PyDoc_STRVAR(lead_error_doc,
"A clock's stamp would lead its source by more than max_lead_ns and the\n"
"clock's on_lead is 'error' (manual clocks always error).  A RuntimeError:\n"
"it is the clock's state, not the call's arguments, that is at fault.");

/* The interpreter's messages ("monostamp.now() takes no keyword
 * arguments") name a function by its __module__: the public one. */
static int public_module_name(PyObject *module)
{
    PyObject *dict = PyModule_GetDict(module), *key, *value;
    PyObject *name = PyUnicode_FromString("monostamp");
    Py_ssize_t pos = 0;
    int rc = name != NULL ? 0 : -1;
    while (rc == 0 && PyDict_Next(dict, &pos, &key, &value))
        if (PyCFunction_Check(value) && PyUnicode_Check(key) &&
            PyUnicode_READ_CHAR(key, 0) != '_')
            rc = PyObject_SetAttrString(value, "__module__", name);
    Py_XDECREF(name);
    return rc;
}

static int ms_exec(PyObject *module)
{
    ms_state *st = STATE(module);

    st->lead_error = PyErr_NewExceptionWithDoc("monostamp.LeadError", lead_error_doc,
                                               PyExc_RuntimeError, NULL);
    if (st->lead_error == NULL || PyModule_AddObjectRef(module, "LeadError", st->lead_error) < 0)
        return -1;
    if (ms_datetime_exec(st) < 0 ||
        exec_type(module, &ms_stamp_spec, &st->stamp_type) < 0 ||
        exec_type(module, &ms_clock_spec, &st->clock_type) < 0 ||
        exec_type(module, &ms_sleep_plan_spec, &st->sleep_plan_type) < 0 || ms_patch_exec(module) < 0 ||
        ms_capi_exec(module) < 0)
        return -1;
    if (ms_clock_default_new(st, &st->default_clock) < 0 ||
        PyModule_AddObjectRef(module, "default_clock",
                              st->default_clock != NULL ? st->default_clock : Py_None) < 0 ||
        PyModule_AddFunctions(module, ms_default_functions) < 0 ||
        PyModule_AddFunctions(module, ms_sleep_functions) < 0 ||
        PyModule_AddFunctions(module, ms_run_functions) < 0)
        return -1;
    if (PyModule_AddStringConstant(module, "__version__", MONOSTAMP_VERSION) < 0 ||
        PyModule_AddIntConstant(module, "DEFAULT_SLEEP_TOLERANCE_NS",
                                MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS) < 0 ||
        PyModule_AddIntConstant(module, "PATCH_MAX_LEAD_NS", MS_PATCH_MAX_LEAD_NS) < 0 ||
        public_module_name(module) < 0)
        return -1;
    PyObject *pairs = policy_pairs();
    int rc = pairs != NULL ? PyModule_AddObjectRef(module, "_POLICIES", pairs) : -1;
    Py_XDECREF(pairs);
    return rc;
}

/* The state's references, each visited and cleared. */
#define REFS(X) X(stamp_type) X(clock_type) X(default_clock) X(lead_error) \
    X(str_utcoffset) X(str_fromutc) X(zones) X(sleep_finish)
#define VISIT(field) Py_VISIT(st->field);
#define CLEAR(field) Py_CLEAR(st->field);

static int ms_traverse(PyObject *module, visitproc visit, void *arg)
{
    ms_state *st = STATE(module);
    PyObject *policies = atomic_load_explicit(&st->policies, memory_order_acquire);
    REFS(VISIT)
    Py_VISIT(policies);
    for (int i = 0; i < MS_TZ_QUARTERS; i++)
        Py_VISIT(st->tz_quarter[i]);
    Py_VISIT(st->sleep_plan_type);
    return ms_ids_traverse(st, visit, arg);
}

static int ms_clear(PyObject *module)
{
    ms_state *st = STATE(module);
    REFS(CLEAR)
    Py_XDECREF(atomic_exchange_explicit(&st->policies, NULL, memory_order_acq_rel));
    for (int i = 0; i < MS_TZ_QUARTERS; i++)
        Py_CLEAR(st->tz_quarter[i]);
    ms_sleep_clear(st);
    ms_ids_clear(st);
    return 0;
}

static void ms_free(void *module)
{
    ms_clear((PyObject *)module);
}

/* A GIL per interpreter (3.12+): no static Python object, the state per
 * module, the core's clocks process-wide and lock-free; the patch's tables
 * are written by the main interpreter alone, with atomic stores, and read
 * by the others without touching its objects (patch.h).  Free-threaded:
 * audited by reading, not tested (the state read-only after exec but for
 * its dicts, patch() refuses). */
static PyModuleDef_Slot ms_slots[] = {
    {Py_mod_exec, ms_exec},
#ifdef Py_mod_multiple_interpreters /* 3.12+ */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_GIL_DISABLED
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(ms_doc,
"The monostamp core, as CPython objects: use the monostamp package.");

static struct PyModuleDef ms_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_monostamp",
    .m_doc = ms_doc,
    .m_size = sizeof(ms_state),
    .m_methods = ms_methods,
    .m_slots = ms_slots,
    .m_traverse = ms_traverse,
    .m_clear = ms_clear,
    .m_free = ms_free,
};

/* The one export: PyMODINIT_FUNC says "default" only on some versions. */
PyMODINIT_FUNC PyInit__monostamp(void);

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
PyMODINIT_FUNC PyInit__monostamp(void)
{
    return PyModuleDef_Init(&ms_module);
}
