/*
 * patch_swap.c: the swapping itself.  The table of targets and their
 * replacements; finding each target's PyMethodDef in its method table;
 * telling a genuine original from another tool's replacement; saving the
 * originals; and writing ml_meth, ours in and the originals back.
 *
 * No lock here: the patch state (which patches are started, and whether
 * ours should be in) is monostamp/_patching.py's, which calls in under its
 * lock; each call runs with the GIL held and never lets it go, so a switch
 * is one step for every other thread (patch.h says why that is enough).
 */
#include "patch.h"

#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
#include <dlfcn.h> /* dladdr: pyconfig.h defines _GNU_SOURCE on glibc */
#define MS_HAVE_DLADDR 1
#endif
#include <string.h>

PyCFunction ms_patch_originals[T_COUNT];

/* The method table entries (found by the first exec); the originals are
 * saved by the first activation. */
static PyMethodDef *defs[T_COUNT];
/* The replacement chosen for the flags each def has (see `specs`). */
static PyCFunction chosen[T_COUNT];
static int saved;

/* -------------------------------------------------------- the table */

typedef struct {
    const char *name;   /* for messages: "time.time" */
    const char *method; /* its name in the method table */
    int flags;          /* the ml_flags the replacement is written for */
    PyCFunction replacement;
    int alt_flags;      /* another spelling some versions use, or -1 */
    PyCFunction alt_replacement;
} target_spec;

#define FN(f) ((PyCFunction)(void (*)(void))(f))

static const target_spec specs[T_COUNT] = {
    [T_TIME] = {"time.time", "time", METH_NOARGS, ms_patch_time, -1, NULL},
    [T_TIME_NS] = {"time.time_ns", "time_ns", METH_NOARGS, ms_patch_time_ns, -1, NULL},
    [T_CLOCK_GETTIME] = {"time.clock_gettime", "clock_gettime", METH_VARARGS,
                         ms_patch_clock_gettime, METH_O, ms_patch_clock_gettime_o},
    [T_CLOCK_GETTIME_NS] = {"time.clock_gettime_ns", "clock_gettime_ns", METH_VARARGS,
                            ms_patch_clock_gettime_ns, METH_O, ms_patch_clock_gettime_ns_o},
    [T_GMTIME] = {"time.gmtime", "gmtime", METH_VARARGS, ms_patch_gmtime, -1, NULL},
    [T_LOCALTIME] = {"time.localtime", "localtime", METH_VARARGS, ms_patch_localtime, -1, NULL},
    [T_CTIME] = {"time.ctime", "ctime", METH_VARARGS, ms_patch_ctime, -1, NULL},
    [T_ASCTIME] = {"time.asctime", "asctime", METH_VARARGS, ms_patch_asctime, -1, NULL},
    [T_STRFTIME] = {"time.strftime", "strftime", METH_VARARGS, ms_patch_strftime, -1, NULL},
    /* Not to draw a stamp: to tell the zone engine at once (patch_time.c). */
    [T_TZSET] = {"time.tzset", "tzset", METH_NOARGS, ms_patch_tzset, -1, NULL},
    [T_NOW] = {"datetime.datetime.now", "now", METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
               FN(ms_patch_now), -1, NULL},
    [T_UTCNOW] = {"datetime.datetime.utcnow", "utcnow", METH_NOARGS | METH_CLASS,
                  ms_patch_utcnow, -1, NULL},
    [T_TODAY] = {"datetime.date.today", "today", METH_NOARGS | METH_CLASS, ms_patch_today, -1,
                 NULL},
};

const char *ms_patch_target_name(int t)
{
    return specs[t].name;
}

/* A target the interpreter may not have: time.tzset() exists only where
 * the C library has a working tzset() (not on Windows).  A missing one is
 * left out (its defs[] entry NULL), never an error. */
static int optional(int t)
{
    return t == T_TZSET;
}

/* The PyMethodDef called `name` in the NULL-terminated `table`. */
static PyMethodDef *find_def(PyMethodDef *table, const char *name)
{
    for (PyMethodDef *d = table; d != NULL && d->ml_name != NULL; d++)
        if (strcmp(d->ml_name, name) == 0)
            return d;
    return NULL;
}

/* The entry called `method` of the table where target `t` lives. */
static PyMethodDef *table_entry(PyModuleDef *time_def, int t, const char *method)
{
    PyMethodDef *table = t == T_NOW || t == T_UTCNOW || t == T_TODAY ? ms_patch_datetime_table(t)
                                                                     : time_def->m_methods;
    return find_def(table, method);
}

/* Per target, a function of the same table that no tool patches: its C
 * code lives in the same binary as the target's genuine original. */
static PyMethodDef *siblings[T_COUNT];

/*
 * Finds the method tables' entries and checks their calling conventions,
 * once per process.  The entries are found in the tables themselves (the
 * `time` module's definition, the C datetime types' tp_methods), never
 * through module attributes, which another tool (freezegun) may have
 * replaced.  The C functions in them are saved later, by the first
 * activation (save_originals), so that a time-machine travelling when this
 * module is imported is not taken for the original.
 */
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
        found[t] = table_entry(time_def, t, specs[t].method);
        sibling[t] = table_entry(time_def, t, t < T_NOW ? "monotonic" : "fromtimestamp");
        /* A function this platform's module lacks (Windows has no
         * time.clock_gettime nor time.tzset) is no target: defs[t] stays
         * NULL.  time.time() itself must be there. */
        if (found[t] == NULL && (optional(t) || (sibling[t] != NULL && t != T_TIME)))
            continue;
        if (found[t] == NULL || sibling[t] == NULL) {
            PyErr_Format(PyExc_RuntimeError, "monostamp.patch: %s is not in its method table",
                         specs[t].name);
            return -1;
        }
        if (found[t]->ml_flags == specs[t].flags)
            chosen[t] = specs[t].replacement;
        else if (found[t]->ml_flags == specs[t].alt_flags)
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

/* 1 if `f` is in the same loaded binary as `sibling` (where the dynamic
 * linker can tell; else 1). */
static int same_binary(PyCFunction f, PyCFunction sibling)
{
#ifdef MS_HAVE_DLADDR
    Dl_info a, b;
    /* POSIX lets function addresses be handled as object addresses. */
    if (dladdr((void *)(uintptr_t)f, &a) == 0 || dladdr((void *)(uintptr_t)sibling, &b) == 0)
        return 1;
    return a.dli_fbase == b.dli_fbase;
#else
    (void)f;
    (void)sibling;
    return 1;
#endif
}

/* Before the first install: saves the C functions now
 * in the tables as the originals, or returns the first target that is
 * neither a genuine original nor ours (another tool has it), else -1. */
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

PyObject *ms_patch_foreign_names(void)
{
    PyObject *names = PyList_New(0);
    for (int t = 0; names != NULL && t < T_COUNT; t++) {
        if (defs[t] == NULL)
            continue;
        PyCFunction f = defs[t]->ml_meth;
        if (f == chosen[t])
            continue;
        if (saved ? f == ms_patch_originals[t] : same_binary(f, siblings[t]->ml_meth))
            continue;
        PyObject *name = PyUnicode_FromString(specs[t].name);
        if (name == NULL || PyList_Append(names, name) < 0)
            Py_CLEAR(names);
        Py_XDECREF(name);
    }
    return names;
}

/* ------------------------------------------------------------ the swaps */

int ms_patch_swap_init(void)
{
    return find_targets();
}

/* Ours are in exactly while an active clock is published: the install
 * publishes one, the uninstall takes it away. */
int ms_patch_installed(void)
{
    return atomic_load_explicit(&ms_patch_active, memory_order_acquire) != NULL;
}

/*
 * time-machine before 3.0 writes its functions into the tables at its first
 * travel and never takes them out again: between travels they pass each
 * call on to the functions it found.  Such a function is then what the
 * table holds when no tool is active, so it is taken as the original:
 * installed over, and written back, as the genuine one would be.  A
 * target's function qualifies only if it lives in the binary of `witness`
 * (one of time-machine's own C functions) and not in the interpreter's.
 * Does nothing while ours are in.  Returns how many targets it took.
 */
int ms_patch_adopt_originals(PyCFunction witness)
{
    int adopted = 0;
    if (!ms_patch_installed()) {
        PyCFunction now[T_COUNT] = {0};
        int foreign_other = 0;
        for (int t = 0; t < T_COUNT; t++) {
            if (defs[t] == NULL)
                continue;
            PyCFunction f = now[t] = defs[t]->ml_meth;
            int genuine = saved ? f == ms_patch_originals[t]
                                : same_binary(f, siblings[t]->ml_meth);
            if (genuine)
                continue;
#ifdef MS_HAVE_DLADDR
            if (same_binary(f, siblings[t]->ml_meth) || !same_binary(f, witness))
                foreign_other = 1;
            else
                adopted++;
#else
            /* No way to tell binaries apart: the caller's word for it. */
            adopted++;
#endif
        }
        /* All or nothing: a third tool's function is never adopted. */
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

int ms_patch_install(active_clock *next)
{
    int conflict = -1;
    if (!ms_patch_installed()) {
        conflict = save_originals();
        /* Ours may still be there: a tool that patched on top of them put
         * them back when it stopped. */
        for (int t = 0; t < T_COUNT && conflict < 0; t++)
            if (defs[t] != NULL && defs[t]->ml_meth != ms_patch_originals[t] &&
                defs[t]->ml_meth != chosen[t])
                conflict = t;
        if (conflict < 0) {
            for (int t = 0; t < T_COUNT; t++)
                if (defs[t] != NULL)
                    defs[t]->ml_meth = chosen[t];
        }
    }
    /* The record swapped out is freed last: its owner's release is the
     * only step that could run other code. */
    ms_patch_free_active(conflict < 0 ? ms_patch_swap_active(next) : next);
    return conflict;
}

void ms_patch_uninstall(void)
{
    if (ms_patch_installed())
        for (int t = 0; t < T_COUNT; t++)
            if (defs[t] != NULL && defs[t]->ml_meth == chosen[t])
                defs[t]->ml_meth = ms_patch_originals[t];
    ms_patch_free_active(ms_patch_swap_active(NULL));
}
