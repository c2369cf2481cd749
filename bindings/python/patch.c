/* patch.c: switching monostamp.patch() on and off (patch.h): the targets'
 * method table entries, a genuine original told from another tool's
 * function, the active clock, and what monostamp/_patching.py calls. */
#include "patch.h"

#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
#include <dlfcn.h> /* dladdr: pyconfig.h defines _GNU_SOURCE on glibc */
#define MS_HAVE_DLADDR 1
#endif
#include <string.h>

PyCFunction ms_patch_originals[T_COUNT];

/* Found by the first exec; the originals saved by the first activation. */
static PyMethodDef *defs[T_COUNT];
/* The replacement for the flags each def has. */
static PyCFunction chosen[T_COUNT];
static int saved;

/* The name's last part is the method table's; a replacement has the
 * ml_flags `flags`, or another version's spelling, `alt_flags`. */
static const struct {
    const char *name;
    int flags;
    PyCFunction replacement;
    int alt_flags;
    PyCFunction alt_replacement;
} specs[T_COUNT] = {
    [T_TIME] = {"time.time", METH_NOARGS, ms_patch_time},
    [T_TIME_NS] = {"time.time_ns", METH_NOARGS, ms_patch_time_ns},
    [T_CLOCK_GETTIME] = {"time.clock_gettime", METH_VARARGS, ms_patch_clock_gettime, METH_O,
                         ms_patch_clock_gettime_o},
    [T_CLOCK_GETTIME_NS] = {"time.clock_gettime_ns", METH_VARARGS, ms_patch_clock_gettime_ns,
                            METH_O, ms_patch_clock_gettime_ns_o},
    [T_GMTIME] = {"time.gmtime", METH_VARARGS, ms_patch_gmtime},
    [T_LOCALTIME] = {"time.localtime", METH_VARARGS, ms_patch_localtime},
    [T_CTIME] = {"time.ctime", METH_VARARGS, ms_patch_ctime},
    [T_ASCTIME] = {"time.asctime", METH_VARARGS, ms_patch_asctime},
    [T_STRFTIME] = {"time.strftime", METH_VARARGS, ms_patch_strftime},
    [T_TZSET] = {"time.tzset", METH_NOARGS, ms_patch_tzset},
    [T_NOW] = {"datetime.datetime.now", METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
               (PyCFunction)(void (*)(void))ms_patch_now},
    [T_UTCNOW] = {"datetime.datetime.utcnow", METH_NOARGS | METH_CLASS, ms_patch_utcnow},
    [T_TODAY] = {"datetime.date.today", METH_NOARGS | METH_CLASS, ms_patch_today},
};

static PyMethodDef *find_def(PyMethodDef *table, const char *name)
{
    for (PyMethodDef *d = table; d != NULL && d->ml_name != NULL; d++)
        if (strcmp(d->ml_name, name) == 0)
            return d;
    return NULL;
}

static PyMethodDef *table_entry(PyModuleDef *time_def, int t, const char *method)
{
    return find_def(t >= T_NOW ? ms_patch_datetime_table(t) : time_def->m_methods, method);
}

/* Per target, a function no tool patches, in the genuine original's binary. */
static PyMethodDef *siblings[T_COUNT];

/* Finds the entries in the tables themselves, never through module
 * attributes (freezegun replaces those), once per process.  Their
 * functions are saved by the first activation, so that a time-machine
 * travelling at import is not taken for the original. */
static int find_targets(void)
{
    if (defs[0] != NULL)
        return 0;
    PyObject *time_module = PyImport_ImportModule("time");
    if (time_module == NULL)
        return -1;
    PyModuleDef *time_def = PyModule_GetDef(time_module);
    Py_DECREF(time_module);
    if (time_def == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "monostamp.patch: the time module has no definition");
        return -1;
    }
    PyMethodDef *found[T_COUNT], *sibling[T_COUNT];
    for (int t = 0; t < T_COUNT; t++) {
        found[t] = table_entry(time_def, t, strrchr(specs[t].name, '.') + 1);
        sibling[t] = table_entry(time_def, t, t < T_NOW ? "monotonic" : "fromtimestamp");
        /* What this platform lacks (Windows: clock_gettime, tzset) is no
         * target; time.time() must be there. */
        if (found[t] == NULL && (t == T_TZSET || (sibling[t] != NULL && t != T_TIME)))
            continue;
        if (found[t] == NULL || sibling[t] == NULL) {
            PyErr_Format(PyExc_RuntimeError, "monostamp.patch: %s is not in its method table",
                         specs[t].name);
            return -1;
        }
        if (found[t]->ml_flags == specs[t].flags)
            chosen[t] = specs[t].replacement;
        else if (specs[t].alt_replacement != NULL && found[t]->ml_flags == specs[t].alt_flags)
            chosen[t] = specs[t].alt_replacement;
        else {
            PyErr_Format(PyExc_RuntimeError,
                         "monostamp.patch: %s has calling convention flags 0x%x, which this "
                         "build does not know", specs[t].name, found[t]->ml_flags);
            return -1;
        }
    }
    for (int t = 0; t < T_COUNT; t++) {
        defs[t] = found[t];
        siblings[t] = sibling[t];
    }
    return 0;
}

/* 1 if `f` is in the binary of `sibling`, or if that cannot be told. */
static int same_binary(PyCFunction f, PyCFunction sibling)
{
#ifdef MS_HAVE_DLADDR
    Dl_info a, b;
    if (dladdr((void *)(uintptr_t)f, &a) == 0 || dladdr((void *)(uintptr_t)sibling, &b) == 0)
        return 1;
    return a.dli_fbase == b.dli_fbase;
#else
    return 1;
#endif
}

/* 1 if `f` is target t's original (before saving: in its sibling's binary). */
static int genuine(int t, PyCFunction f)
{
    return saved ? f == ms_patch_originals[t] : same_binary(f, siblings[t]->ml_meth);
}

/* Saves the tables' functions as the originals, or returns the first
 * target another tool has; -1 when saved. */
static int save_originals(void)
{
    if (saved)
        return -1;
    for (int t = 0; t < T_COUNT; t++)
        if (defs[t] != NULL && !same_binary(defs[t]->ml_meth, siblings[t]->ml_meth))
            return t;
    for (int t = 0; t < T_COUNT; t++)
        if (defs[t] != NULL)
            ms_patch_originals[t] = defs[t]->ml_meth;
    saved = 1;
    return -1;
}

_Atomic(active_clock *) ms_patch_active;
_Atomic(monostamp_clock *) ms_patch_shared;

/* Another interpreter may call through an entry while the main one writes
 * it, each under its own GIL: the one word is stored atomically, with
 * release order so that the originals, saved before, are seen with it.
 * CPython reads ml_meth with a plain load of the same aligned word. */
_Static_assert(sizeof(_Atomic(PyCFunction)) == sizeof(PyCFunction),
               "an atomic function pointer is a plain one");

static void store_meth(PyMethodDef *def, PyCFunction f)
{
    atomic_store_explicit((_Atomic(PyCFunction) *)&def->ml_meth, f, memory_order_release);
}

static int in_main_interpreter(void)
{
    return PyInterpreterState_Get() == PyInterpreterState_Main();
}

static void free_active(active_clock *a)
{
    if (a == NULL)
        return;
    Py_DECREF(a->owner);
    PyMem_RawFree(a);
}

/* Publishes `next` (or NULL), then frees the record it replaced: its
 * owner's release is the only step that could run other code. */
static void publish_active(active_clock *next)
{
    /* Other interpreters follow a patch on the default clock alone: a
     * caller's Clock is an object of this interpreter. */
    atomic_store_explicit(&ms_patch_shared,
                          next != NULL && next->owner == Py_None ? next->clock : NULL,
                          memory_order_release);
    free_active(atomic_exchange_explicit(&ms_patch_active, next, memory_order_acq_rel));
}
int ms_patch_draw(const active_clock *a, int kind, const char *call, monostamp_stamp *out)
{
    int rc = monostamp_draw(a->clock, (unsigned)kind, a->lead_bound_ns, out);
    if (rc != MONOSTAMP_OK) {
        /* The default clock (owner None) only waits: never LeadError. */
        ms_state *st = a->owner != Py_None ? ms_state_of_type(Py_TYPE(a->owner)) : NULL;
        raise_core(st, rc, NULL, "%s", call);
        return -1;
    }
    return 0;
}

/* Ours are in exactly while an active clock is published. */
static int installed(void)
{
    return atomic_load_explicit(&ms_patch_active, memory_order_acquire) != NULL;
}

/* time-machine before 3.0 leaves pass-through functions in the tables
 * after its first travel: those (in the binary of `witness`, one of its
 * own functions) are taken as the originals, all or none.  Returns how
 * many targets it took; nothing while ours are in. */
static int adopt_originals(PyCFunction witness)
{
    int adopted = 0;
    if (!installed()) {
        PyCFunction now[T_COUNT] = {0};
        int foreign_other = 0;
        for (int t = 0; t < T_COUNT; t++) {
            if (defs[t] == NULL)
                continue;
            PyCFunction f = now[t] = defs[t]->ml_meth;
            if (genuine(t, f))
                continue;
#ifdef MS_HAVE_DLADDR
            if (same_binary(f, siblings[t]->ml_meth) || !same_binary(f, witness))
                foreign_other = 1;
            else
                adopted++;
#else
            adopted++;
#endif
        }
        if (foreign_other)
            adopted = 0;
        else if (adopted > 0) {
            for (int t = 0; t < T_COUNT; t++)
                if (defs[t] != NULL)
                    ms_patch_originals[t] = now[t];
            saved = 1;
        }
    }
    return adopted;
}

/* Installs ours if not in and publishes `next` (owned): -1.  Or, when
 * another tool has a target, frees `next` and returns that target. */
static int install(active_clock *next)
{
    int conflict = -1;
    if (!installed()) {
        conflict = save_originals();
        for (int t = 0; t < T_COUNT && conflict < 0; t++)
            if (defs[t] != NULL && defs[t]->ml_meth != ms_patch_originals[t] &&
                defs[t]->ml_meth != chosen[t])
                conflict = t;
        if (conflict < 0) {
            for (int t = 0; t < T_COUNT; t++)
                if (defs[t] != NULL)
                    store_meth(defs[t], chosen[t]);
        }
    }
    if (conflict < 0)
        publish_active(next);
    else
        free_active(next);
    return conflict;
}

PyDoc_STRVAR(activate_doc, "_activate(clock, /)\n--\n\n"
"Makes `clock` (a Clock, None: the default clock) the one the patched\n"
"functions draw from, installing them first.  Use monostamp.patch().");

/* -1 with RuntimeError if a patch may not start or stop here (patch.h),
 * else 0. */
static int refuse_here(const char *verb)
{
#ifdef Py_GIL_DISABLED
    const char *reason = "on a free-threaded build (its ml_meth writes would race with other "
                         "threads' calls; not audited or tested there)";
#else
    if (in_main_interpreter())
        return 0;
    const char *reason = "outside the main interpreter (the patched method tables are the "
                         "process's)";
#endif
    PyErr_Format(PyExc_RuntimeError, "monostamp.patch() cannot %s %s", verb, reason);
    return -1;
}

PyDoc_STRVAR(check_start_doc, "_check_start()\n--\n\n"
"RuntimeError saying why if a patch cannot start here, else None.");

static PyObject *check_start(PyObject *module, PyObject *unused)
{
    return refuse_here("start") < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *activate(PyObject *module, PyObject *clock_obj)
{
    ms_state *st = (ms_state *)PyModule_GetState(module);
    monostamp_clock *clock;
    int64_t bound = 0;
    if (refuse_here("start") < 0)
        return NULL;
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
    *next = (active_clock){Py_NewRef(clock_obj), clock, bound};

    int conflict = install(next);
    if (conflict >= 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "monostamp.patch() cannot start: %s is patched by another tool "
                            "(time-machine?); stop it first",
                            specs[conflict].name);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(adopt_doc, "_adopt(witness, /)\n--\n\n"
"Takes old time-machine's pass-through functions, in the binary of\n"
"`witness`, as the originals (adopt_originals); returns how many.");

static PyObject *adopt(PyObject *module, PyObject *witness)
{
    if (!PyCFunction_Check(witness))
        return ms_type_error("_adopt(): witness", "a built-in function", witness), NULL;
    if (refuse_here("start") < 0)
        return NULL;
    return PyLong_FromLong(adopt_originals(PyCFunction_GetFunction(witness)));
}

PyDoc_STRVAR(deactivate_doc, "_deactivate()\n--\n\n"
"Puts the original functions back and forgets the active clock (no wait:\n"
"each patched value was within the patch's lead bound of real time).");

static PyObject *deactivate(PyObject *module, PyObject *unused)
{
    if (refuse_here("stop") < 0)
        return NULL;
    if (installed())
        for (int t = 0; t < T_COUNT; t++)
            if (defs[t] != NULL && defs[t]->ml_meth == chosen[t])
                store_meth(defs[t], ms_patch_originals[t]);
    publish_active(NULL);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(installed_doc, "_installed()\n--\n\n"
"True while the replacements are in the method tables.");

static PyObject *is_installed(PyObject *module, PyObject *unused)
{
    if (!in_main_interpreter()) /* what reaches this one */
        return PyBool_FromLong(atomic_load_explicit(&ms_patch_shared, memory_order_acquire) != NULL);
    return PyBool_FromLong(installed());
}

PyDoc_STRVAR(foreign_doc, "_foreign()\n--\n\n"
"The names of the targets another tool (time-machine) has patched.");

static PyObject *foreign(PyObject *module, PyObject *unused)
{
    PyObject *names = PyList_New(0);
    /* The tables are the main interpreter's to watch (patch.h). */
    for (int t = 0; names != NULL && in_main_interpreter() && t < T_COUNT; t++) {
        if (defs[t] == NULL)
            continue;
        if (defs[t]->ml_meth == chosen[t] || genuine(t, defs[t]->ml_meth))
            continue;
        PyObject *name = PyUnicode_FromString(specs[t].name);
        if (name == NULL || PyList_Append(names, name) < 0)
            Py_CLEAR(names);
        Py_XDECREF(name);
    }
    return names;
}

static PyMethodDef patch_functions[] = {
    {"_activate", activate, METH_O, activate_doc},
    {"_deactivate", deactivate, METH_NOARGS, deactivate_doc},
    {"_foreign", foreign, METH_NOARGS, foreign_doc},
    {"_installed", is_installed, METH_NOARGS, installed_doc},
    {"_adopt", adopt, METH_O, adopt_doc},
    {"_check_start", check_start, METH_NOARGS, check_start_doc},
    {NULL, NULL, 0, NULL},
};

int ms_patch_exec(PyObject *module)
{
    /* The targets and the originals are found and written by the main
     * interpreter alone, the only one that may start a patch. */
    if (in_main_interpreter() && (ms_patch_datetime_import() < 0 || find_targets() < 0))
        return -1;
    return PyModule_AddFunctions(module, patch_functions);
}
