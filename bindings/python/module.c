/*
 * module.c: the _monostamp module: its functions, its exec slot and its
 * definition, in the manner of CPython's Modules/xxlimited.c (multi-phase
 * init, module state, heap types from specs).
 *
 * The package (monostamp/__init__.py) re-exports these objects as they
 * are: now() and time_ns() are METH_NOARGS functions, so a call is one C
 * call into the core and, for now(), one allocation.
 *
 * The other files: stamp.c and clock.c (the two types; Stamp's datetime
 * conversions and arithmetic in stamp_datetime.c and stamp_arith.c),
 * ids.c (UUIDv7 and take()), convert.c (arguments), errors.c (the one
 * error mapping), sleep.c, and patch_*.c (monostamp.patch()'s C half,
 * whose story patch.h tells).
 */
#include "module.h"
#include "ids.h"
#include "patch.h"

#include <stdlib.h>
#include <string.h>

#define STATE(module) ((ms_state *)PyModule_GetState(module))

/* Raises the error that makes the default clock unusable (a bad
 * MONOSTAMP_SHARED file, named from the environment) and returns NULL. */
PyObject *ms_default_clock_error(ms_state *st)
{
    monostamp_clock *clock;
    int rc = monostamp_default_clock(&clock);
    if (rc == MONOSTAMP_OK) {
        /* The core promises its error on every call once it has one. */
        PyErr_SetString(PyExc_SystemError, "monostamp: the default clock became usable");
        return NULL;
    }
    const char *shared = getenv("MONOSTAMP_SHARED");
    PyObject *path = shared != NULL ? PyUnicode_DecodeFSDefault(shared) : NULL;
    if (shared != NULL && path == NULL)
        return NULL;
    raise_core(st, rc, path, "the default clock is unusable (MONOSTAMP_SHARED=%R)",
               path != NULL ? path : Py_None);
    Py_XDECREF(path);
    return NULL;
}

PyDoc_STRVAR(now_doc,
"now()\n--\n\n"
"The next Stamp from the process's default clock: realtime source, local\n"
"zone, the policy set_policy() chose; shared with fork()ed children, and\n"
"with every process whose MONOSTAMP_SHARED names the same file.");

static PyObject *ms_now(PyObject *module, PyObject *unused)
{
    ms_state *st = STATE(module);
    monostamp_stamp stamp;
    (void)unused;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    int rc = monostamp_now(st->default_clock, &stamp);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "now()");
    return ms_stamp_new(st->stamp_type, stamp.utc_ns, stamp.offset_s);
}

PyDoc_STRVAR(time_ns_doc,
"time_ns()\n--\n\n"
"The default clock's next stamp, int ns since the epoch only: like\n"
"time.time_ns(), but unique and monotonic under the default policy.");

static PyObject *ms_time_ns(PyObject *module, PyObject *unused)
{
    ms_state *st = STATE(module);
    int64_t ns;
    (void)unused;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    int rc = monostamp_time_ns(st->default_clock, &ns);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "time_ns()");
    return PyLong_FromLongLong(ns);
}

PyDoc_STRVAR(time_doc,
"time()\n--\n\n"
"The default clock's next stamp as float seconds, like time.time(), but\n"
"drawn at whole-µs grain so that every value is unique (one sequence\n"
"with now() and time_ns()).");

static PyObject *ms_time(PyObject *module, PyObject *unused)
{
    ms_state *st = STATE(module);
    (void)unused;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    return ms_draw_time(st, st->default_clock, "time()");
}

PyDoc_STRVAR(now_datetime_doc,
"now_datetime(tz=None)\n--\n\n"
"The default clock's next stamp as an aware datetime.datetime at the\n"
"local offset, or converted to tz: drawn at whole-µs grain, so unique.");

static PyObject *ms_now_datetime(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    static const char *const names[] = {"tz", NULL};
    ms_state *st = STATE(module);
    PyObject *tz;
    if (ms_parse_args("now_datetime", args, nargs, kwnames, names, 1, 0, &tz) < 0)
        return NULL;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    return ms_draw_datetime(st, st->default_clock, tz, "now_datetime()");
}

PyDoc_STRVAR(get_policy_doc,
"get_policy()\n--\n\n"
"The default clock's Policy (Squeak's `Time clockPolicy`).");

static PyObject *ms_get_policy(PyObject *module, PyObject *unused)
{
    ms_state *st = STATE(module);
    (void)unused;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    return ms_policy_object(st, monostamp_get_policy());
}

PyDoc_STRVAR(set_policy_doc,
"set_policy(policy, /)\n--\n\n"
"Sets this process's default clock's Policy (a Policy or its name) for\n"
"its next stamp.  The policy is the process's own: other processes\n"
"sharing the clock's state (fork() children after the call excepted,\n"
"which inherit it) keep theirs.");

static PyObject *ms_set_policy(PyObject *module, PyObject *arg)
{
    ms_state *st = STATE(module);
    int policy;
    if (ms_policy_arg(st, arg, "set_policy(): policy", &policy) < 0)
        return NULL;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    int rc = monostamp_set_policy(policy);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "set_policy(%R)", arg);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(clock_info_doc,
"clock_info(source, /)\n--\n\n"
"Facts about a source as a dict: name, implementation, resolution (float\n"
"s), resolution_ns, adjustable, monotonic.  monostamp.clock_info wraps it\n"
"in a namespace, like time.get_clock_info().");

static PyObject *ms_clock_info(PyObject *module, PyObject *arg)
{
    ms_state *st = STATE(module);
    monostamp_clock_info info;
    int source;
    if (ms_source_arg(arg, "clock_info(): source", &source) < 0)
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

PyDoc_STRVAR(zone_changed_doc,
"zone_changed()\n--\n\n"
"Says that TZ or the local zone file changed: the next offset of every\n"
"local zone re-reads it (else a change is noticed within a second).\n"
"Call it after changing os.environ['TZ'].");

static PyObject *ms_zone_changed(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    monostamp_zone_changed();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(share_default_doc,
"_share_default(path, /)\n--\n\n"
"Moves the default clock onto the state file at path (created if absent),\n"
"as MONOSTAMP_SHARED would have at import: for the pytest plugin, which\n"
"makes the file after monostamp is imported.  Call it while no other\n"
"thread takes default stamps.");

static PyObject *ms_share_default(PyObject *module, PyObject *arg)
{
    ms_state *st = STATE(module);
    PyObject *bytes;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    if (ms_path_arg(arg, "_share_default(): path", &bytes) < 0)
        return NULL;
    int rc = monostamp_default_share(PyBytes_AsString(bytes));
    Py_DECREF(bytes);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, arg, "_share_default(%R)", arg);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(create_state_file_doc,
"create_state_file(path, /, *, trust_group=False)\n--\n\n"
"Creates a state file at path whose sequence starts at the wall clock,\n"
"where a file a clock creates starts its lead bound (1 s by default)\n"
"ahead of it.  Only for a path in a directory you made yourself for this\n"
"sequence (a test runner's private directory): no earlier sequence can\n"
"have handed out stamps there for the new one to repeat.  Clocks and\n"
"MONOSTAMP_SHARED then join it as usual.  FileExistsError if a file is\n"
"already at path.");

static PyObject *ms_create_state_file(PyObject *module, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", "trust_group"};
    PyObject *path = NULL, *trust = Py_False, *bytes;
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError,
                     "create_state_file() takes exactly 1 positional argument (%zd given)",
                     nargs);
        return NULL;
    }
    path = args[0];
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        if (PyUnicode_CompareWithASCIIString(name, names[1]) == 0) {
            trust = args[nargs + i];
        } else {
            PyErr_Format(PyExc_TypeError,
                         "create_state_file() got an unexpected keyword argument '%U'", name);
            return NULL;
        }
    }
    if (!PyBool_Check(trust)) {
        ms_type_error("create_state_file(): trust_group", "bool", trust);
        return NULL;
    }
    if (ms_path_arg(path, "create_state_file(): path", &bytes) < 0)
        return NULL;
    int rc = monostamp_state_file_create(PyBytes_AsString(bytes), trust == Py_True);
    Py_DECREF(bytes);
    if (rc != MONOSTAMP_OK)
        return raise_core(STATE(module), rc, path, "create_state_file(%R)", path);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(monotonic_ns_doc,
"monotonic_ns()\n--\n\n"
"CLOCK_MONOTONIC in int ns: the time base of sleep_until_ns().");

static PyObject *ms_monotonic_ns(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromLongLong(monostamp_monotonic_ns());
}

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyDoc_STRVAR(module_getattr_doc,
"__getattr__(name, /)\n--\n\n"
"Policy, made when first asked for (PEP 562).");

static PyObject *ms_module_getattr(PyObject *module, PyObject *name)
{
    ms_state *st = STATE(module);
    if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "Policy") == 0) {
        if (ms_policy_ready(st) < 0 ||
            PyModule_AddObjectRef(module, "Policy", st->policy_type) < 0)
            return NULL;
        return Py_NewRef(st->policy_type);
    }
    PyErr_Format(PyExc_AttributeError, "module 'monostamp._monostamp' has no attribute %R",
                 name);
    return NULL;
}

static PyMethodDef ms_methods[] = {
    {"now", ms_now, METH_NOARGS, now_doc},
    {"time_ns", ms_time_ns, METH_NOARGS, time_ns_doc},
    {"time", ms_time, METH_NOARGS, time_doc},
    {"uuid7", ms_uuid7, METH_NOARGS, ms_uuid7_doc},
    {"uuid7_ns", ms_uuid7_ns, METH_O, ms_uuid7_ns_doc},
    {"take", ms_take, METH_O, ms_take_doc},
    {"now_datetime", FASTCALL_KW(ms_now_datetime), now_datetime_doc},
    {"get_policy", ms_get_policy, METH_NOARGS, get_policy_doc},
    {"set_policy", ms_set_policy, METH_O, set_policy_doc},
    {"clock_info", ms_clock_info, METH_O, clock_info_doc},
    {"zone_changed", ms_zone_changed, METH_NOARGS, zone_changed_doc},
    {"monotonic_ns", ms_monotonic_ns, METH_NOARGS, monotonic_ns_doc},
    {"create_state_file", FASTCALL_KW(ms_create_state_file), create_state_file_doc},
    {"sleep", FASTCALL_KW(ms_sleep), ms_sleep_doc},
    {"sleep_until_ns", FASTCALL_KW(ms_sleep_until_ns), ms_sleep_until_ns_doc},
    /* Their finish in Python (sleep.c, monostamp/_sleep.py). */
    {"_sleep_until_core", FASTCALL_KW(ms_sleep_until_core), ms_sleep_until_core_doc},
    {"_sleep_finish", ms_sleep_finish, METH_O, ms_sleep_finish_doc},
    {"_share_default", ms_share_default, METH_O, share_default_doc},
    {"__getattr__", ms_module_getattr, METH_O, module_getattr_doc},
    /* monostamp.patch()'s C half (patch_functions.c). */
    {"_activate", ms_patch_activate, METH_O, ms_patch_activate_doc},
    {"_deactivate", ms_patch_deactivate, METH_NOARGS, ms_patch_deactivate_doc},
    {"_foreign", ms_patch_foreign, METH_NOARGS, ms_patch_foreign_doc},
    {"_installed", ms_patch_is_installed, METH_NOARGS, ms_patch_installed_doc},
    {"_targets", ms_patch_targets, METH_NOARGS, ms_patch_targets_doc},
    {"_after_fork", ms_patch_after_fork, METH_NOARGS, ms_patch_after_fork_doc},
    {"_hold_switch_lock", ms_patch_hold_switch_lock, METH_O, ms_patch_hold_switch_lock_doc},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------------ the exec */

PyDoc_STRVAR(policy_doc,
"What a clock does with a reading r, given the last value it handed out.\n\n"
"Names and values follow Squeak Smalltalk's ``Time clockPolicy:``; every\n"
"API taking a Policy also takes its value, the Squeak name.\n\n"
"ACCEPT_PLATFORM_TIME: r as read: may repeat, may go backwards.\n"
"MONOTONIC_ALLOW_DUPLICATES: max(r, last): never backwards, may repeat.\n"
"MONOTONIC_FORCE_MICROSECOND_INCREMENT: r floored to a whole microsecond,\n"
"    or the next whole microsecond after last.\n"
"MONOTONIC_FORCE_NANOSECOND_INCREMENT: r if greater than last, else\n"
"    last + 1 ns: strictly increasing (the default).");

/* The members' Python names, indexed by monostamp_policy; their values
 * are the core's names for the same policies. */
static const char *const policy_members[MS_POLICY_COUNT] = {
    "ACCEPT_PLATFORM_TIME",
    "MONOTONIC_ALLOW_DUPLICATES",
    "MONOTONIC_FORCE_MICROSECOND_INCREMENT",
    "MONOTONIC_FORCE_NANOSECOND_INCREMENT",
};

/*
 * Makes monostamp.Policy, a (str, enum.Enum) class, with enum's functional
 * API: the members are then ready before any getter can return one, so a
 * policy always comes back as a member.  str() and format() give the
 * value, as the Squeak name is what users print.
 */
static PyObject *make_policy_type(void)
{
    PyObject *enum_type = NULL, *members = NULL, *kwargs = NULL, *args = NULL, *cls = NULL;
    PyObject *enum_module = PyImport_ImportModule("enum");
    if (enum_module == NULL)
        return NULL;
    if ((enum_type = PyObject_GetAttrString(enum_module, "Enum")) == NULL ||
        (members = PyList_New(0)) == NULL)
        goto done;
    for (int p = 0; p < MS_POLICY_COUNT; p++) {
        PyObject *pair = Py_BuildValue("(ss)", policy_members[p], monostamp_policy_name(p));
        if (pair == NULL || PyList_Append(members, pair) < 0) {
            Py_XDECREF(pair);
            goto done;
        }
        Py_DECREF(pair);
    }
    args = Py_BuildValue("(sO)", "Policy", members);
    kwargs = Py_BuildValue("{s:s,s:s,s:O}", "module", "monostamp", "qualname", "Policy", "type",
                           (PyObject *)&PyUnicode_Type);
    if (args == NULL || kwargs == NULL ||
        (cls = PyObject_Call(enum_type, args, kwargs)) == NULL)
        goto done;
    PyObject *str_str = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, "__str__");
    PyObject *str_format = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, "__format__");
    PyObject *doc = PyUnicode_FromString(policy_doc);
    if (str_str == NULL || str_format == NULL || doc == NULL ||
        PyObject_SetAttrString(cls, "__str__", str_str) < 0 ||
        PyObject_SetAttrString(cls, "__format__", str_format) < 0 ||
        PyObject_SetAttrString(cls, "__doc__", doc) < 0)
        Py_CLEAR(cls);
    Py_XDECREF(str_str);
    Py_XDECREF(str_format);
    Py_XDECREF(doc);
done:
    Py_XDECREF(kwargs);
    Py_XDECREF(args);
    Py_XDECREF(members);
    Py_XDECREF(enum_type);
    Py_DECREF(enum_module);
    return cls;
}

/* Policy and its members by monostamp_policy, into the state, made on
 * first use: the enum module costs more to import than datetime, and most
 * processes that import monostamp (a child patched at startup) never ask
 * for a Policy.  Made under the GIL; enum's code may release it, so a
 * thread that finds the type made by another meanwhile keeps that one.
 * Returns 0, or -1 with an exception set. */
int ms_policy_ready(ms_state *st)
{
    if (st->policy_type != NULL)
        return 0;
    PyObject *members[MS_POLICY_COUNT] = {NULL};
    PyObject *cls = make_policy_type();
    if (cls == NULL)
        return -1;
    for (int p = 0; p < MS_POLICY_COUNT; p++) {
        if ((members[p] = PyObject_GetAttrString(cls, policy_members[p])) == NULL) {
            for (int q = 0; q < p; q++)
                Py_DECREF(members[q]);
            Py_DECREF(cls);
            return -1;
        }
    }
    if (st->policy_type != NULL) { /* another thread made it meanwhile */
        for (int p = 0; p < MS_POLICY_COUNT; p++)
            Py_DECREF(members[p]);
        Py_DECREF(cls);
        return 0;
    }
    for (int p = 0; p < MS_POLICY_COUNT; p++)
        st->policies[p] = members[p];
    st->policy_type = cls;
    return 0;
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

static int ms_exec(PyObject *module)
{
    ms_state *st = STATE(module);
    monostamp_clock *clock;

    st->lead_error = PyErr_NewExceptionWithDoc("monostamp.LeadError", lead_error_doc,
                                               PyExc_RuntimeError, NULL);
    if (st->lead_error == NULL || PyModule_AddObjectRef(module, "LeadError", st->lead_error) < 0)
        return -1;
    if (ms_datetime_exec(st) < 0 ||
        exec_type(module, &ms_stamp_spec, &st->stamp_type) < 0 ||
        exec_type(module, &ms_clock_spec, &st->clock_type) < 0 || ms_patch_exec() < 0)
        return -1;
    if (PyModule_AddStringConstant(module, "__version__", MONOSTAMP_VERSION) < 0 ||
        PyModule_AddIntConstant(module, "DEFAULT_SLEEP_TOLERANCE_NS",
                                MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS) < 0 ||
        PyModule_AddIntConstant(module, "PATCH_MAX_LEAD_NS", MS_PATCH_MAX_LEAD_NS) < 0)
        return -1;
    /* Asked once, here, before any thread can see the module: the core's
     * answer never changes, and the pointer is then only read.  An
     * unusable clock is asked again by each call, to raise its error. */
    st->default_clock = monostamp_default_clock(&clock) == MONOSTAMP_OK ? clock : NULL;
    if (st->default_clock != NULL) {
        ms_waiter_on_default_clock(st->default_clock);
        st->waits_on_default = 1;
    }
    return 0;
}

static int ms_traverse(PyObject *module, visitproc visit, void *arg)
{
    ms_state *st = STATE(module);
    Py_VISIT(st->stamp_type);
    Py_VISIT(st->clock_type);
    Py_VISIT(st->lead_error);
    Py_VISIT(st->policy_type);
    for (int p = 0; p < MS_POLICY_COUNT; p++)
        Py_VISIT(st->policies[p]);
    Py_VISIT(st->tz_by_offset);
    Py_VISIT(st->zones);
    for (int i = 0; i < MS_TZ_QUARTERS; i++)
        Py_VISIT(st->tz_quarter[i]);
    Py_VISIT(st->sleep_finish);
    return ms_ids_traverse(st, visit, arg);
}

static int ms_clear(PyObject *module)
{
    ms_state *st = STATE(module);
    Py_CLEAR(st->stamp_type);
    Py_CLEAR(st->clock_type);
    Py_CLEAR(st->lead_error);
    Py_CLEAR(st->policy_type);
    for (int p = 0; p < MS_POLICY_COUNT; p++)
        Py_CLEAR(st->policies[p]);
    Py_CLEAR(st->str_utcoffset);
    Py_CLEAR(st->str_fromutc);
    Py_CLEAR(st->tz_by_offset);
    Py_CLEAR(st->zones);
    for (int i = 0; i < MS_TZ_QUARTERS; i++)
        Py_CLEAR(st->tz_quarter[i]);
    Py_CLEAR(st->sleep_finish);
    ms_ids_clear(st);
    return 0;
}

static void ms_free(void *module)
{
    ms_state *st = STATE(module);
    if (st->waits_on_default) {
        ms_waiter_off_default_clock(st->default_clock);
        st->waits_on_default = 0;
    }
    ms_clear((PyObject *)module);
}

/*
 * What was audited, and so declared:
 *
 * Several interpreters sharing one GIL: the core's only process-wide
 * state is the default clock (lock-free, holding no Python object), the
 * module state is per module object, and monostamp.patch() starts in the
 * main interpreter only.  Not a GIL per interpreter: the patch's ml_meth
 * writes (patch.h) would race with other interpreters' calls.
 *
 * No GIL (free-threaded builds, 3.13+): the core is lock-free, the state
 * is read-only after exec but for its dicts, objects hold no mutable
 * Python state (a Clock's policy is the core's atomic), and uuid7()'s
 * lazily imported references are published atomically (ids.c).
 * monostamp.patch() refuses to start there (patch_functions.c).  This is
 * an audit by reading only: free-threaded CPython is not available where
 * the extension is built and tested.
 */
static PyModuleDef_Slot ms_slots[] = {
    {Py_mod_exec, ms_exec},
#ifdef Py_mod_multiple_interpreters /* 3.12+ */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED},
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

/* The one exported symbol: the core and the binding are built with
 * -fvisibility=hidden, and PyMODINIT_FUNC says "default" only on some
 * versions' headers. */
PyMODINIT_FUNC PyInit__monostamp(void);

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
PyMODINIT_FUNC PyInit__monostamp(void)
{
    return PyModuleDef_Init(&ms_module);
}
