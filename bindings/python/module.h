/* module.h: what the files of the _monostamp extension share: the module
 * state, the error mapping and the argument converters.  The full C API,
 * not the stable ABI: patch() rewrites interpreter internals (patch.h), and
 * free-threaded builds have no stable ABI. */
#ifndef MONOSTAMP_PY_MODULE_H
#define MONOSTAMP_PY_MODULE_H

#include <Python.h>

#include <stdatomic.h>
#include <stdint.h>

#include "monostamp_host.h"

/* Whole quarter-hour UTC offsets strictly within a day: -95..95. */
#define MS_TZ_QUARTERS 191

/* Set once by the exec slot and read-only after it, but for the zone
 * cache (a dict: thread-safe, bounded: stamp_datetime.c): no lock. */
typedef struct {
    PyTypeObject *stamp_type, *clock_type, *sleep_plan_type;
    PyObject *lead_error;
    /* Policy's members by monostamp_policy, a tuple: ms_policy_members. */
    _Atomic(PyObject *) policies;
    PyObject *str_utcoffset, *str_fromutc;
    PyObject *zones;        /* zone name -> capsule of a monostamp_zone */
    PyObject *tz_quarter[MS_TZ_QUARTERS]; /* by offset / 900 + MS_TZ_QUARTERS / 2 */
    PyObject *default_clock; /* NULL if the core's was unusable at exec */
    _Atomic(struct ms_uuid_refs *) uuid_refs; /* ids.c, imported on first use */
    _Atomic(PyObject *) sleep_plan_spare;
    /* monostamp/_sleep.py's finish, or NULL; the tests swap it from the
     * sleeping thread only. */
    PyObject *sleep_finish;
} ms_state;

static inline ms_state *ms_state_of_type(PyTypeObject *type)
{
    return (ms_state *)PyType_GetModuleState(type);
}

extern PyType_Spec ms_stamp_spec;
extern PyType_Spec ms_clock_spec;

/* A Stamp: 32 bytes, no references, not GC-tracked; here so that now()
 * builds one inline, the hot path. */
typedef struct {
    PyObject_HEAD
    int64_t utc_ns;
    int32_t offset;
} ms_stamp_object;

/* A Stamp of `type`, Stamp itself (a subclass: ms_stamp_of_class). */
static inline PyObject *ms_stamp_new(PyTypeObject *type, int64_t utc_ns, int32_t offset)
{
    ms_stamp_object *self = PyObject_New(ms_stamp_object, type);
    if (self == NULL)
        return NULL;
    self->utc_ns = utc_ns;
    self->offset = offset;
    return (PyObject *)self;
}

/* ------------------------------------------------------------- errors */

/* The one place the core's codes become exceptions (errors.c): raises
 * "<fmt's context>: <monostamp_strerror>" and returns NULL.  OSError (its
 * errno subclass, `filename` kept if not NULL), PermissionError (EUNSAFE),
 * FileExistsError, LeadError, MemoryError, RuntimeError for an unknown
 * code, else ValueError.  `st` may be NULL where `code` cannot be ELEAD. */
PyObject *raise_core(ms_state *st, int code, PyObject *filename, const char *fmt, ...);
/* Raises why the default clock is unusable; `st` may be NULL. */
PyObject *ms_default_clock_error(ms_state *st);

/* Every message reads "call(): what is wrong with which value -- what to
 * do", in ASCII.  ms_raise raises `type` with the formatted text; returns
 * NULL. */
PyObject *ms_raise(PyObject *type, const char *fmt, ...);
/* Raises `type` with "prefix: " before `text`, a sentence the core wrote
 * (monostamp_host.h), unchanged.  Returns NULL. */
PyObject *ms_core_text(PyObject *type, const char *prefix, const char *text);
/* Raises "prefix: " and `text`, the core's sentence for `code`, as
 * raise_core maps the code (LeadError, ValueError, ...); raise_core's
 * for an empty `text`.  Returns NULL. */
PyObject *ms_core_fault(ms_state *st, int code, const char *prefix, const char *text);
/* ValueError "prefix: " and the core's sentence for the options field
 * `field` monostamp_options_check refused, given as `value`.  Returns -1. */
int ms_options_fault(const char *prefix, const char *field, PyObject *value);
/* ValueError with the core's sentence of `rule` (monostamp_rule_text) for
 * `what` ("Stamp(): offset") and repr(value).  Returns -1. */
int ms_rule_error(const char *what, int rule, PyObject *value);
/* ValueError for a zone monostamp_zone_open refused: the core's sentence,
 * "did you mean" when it has one; `name` (its UTF-8) may be NULL. */
PyObject *ms_zone_error(const char *call, const char *name);
/* Raises for `code`, a failure of `call` given the state file `path` (its
 * bytes `path_bytes`) as `what`: the core's monostamp_state_file_text,
 * FileNotFoundError without a filename when it carries the hint for a
 * missing directory, else as raise_core maps `code`, `path` the filename.
 * Returns NULL. */
PyObject *ms_state_file_error(ms_state *st, const char *call, const char *what, int code,
                              PyObject *path, const char *path_bytes);
/* TypeError "`what` must be `expected`, not <type name>"; returns -1. */
int ms_type_error(const char *what, const char *expected, PyObject *obj);

/* --------------------------------------------------------- converters */

/* convert.c: each stores into *out and returns 0, or -1 with TypeError for
 * a wrong type, ValueError naming `what` ("Clock(): policy") and the value. */
const char *ms_utf8_arg(PyObject *obj, const char *what, int no_nul, Py_ssize_t *len);
/* An int, not a bool: 0, 1 past long long (no error set), -1 with the error. */
int ms_long_arg(PyObject *obj, const char *what, long long *out);
int ms_int64_arg(PyObject *obj, const char *what, int64_t *out);
/* Seconds (int or float) as ns, rounded up: a sleep is never shorter. */
int ms_seconds_arg(PyObject *obj, const char *what, int64_t *out);
/* A name the core gives the options field `field` ("source", "on_lead"). */
int ms_option_arg(PyObject *obj, const char *what, const char *field, const char *expected,
                  int *out);
/* A Policy member, or a name as ms_option_arg takes it. */
int ms_policy_arg(ms_state *st, PyObject *obj, const char *what, int *out);
/* The tuple of Policy's members by monostamp_policy (module.c), borrowed
 * from the state: imported on first need; NULL with an error. */
PyObject *ms_policy_members(ms_state *st);
/* A new reference to the member for the core's `policy`. */
PyObject *ms_policy_object(ms_state *st, int policy);
/* True or False only. */
int ms_bool_arg(PyObject *obj, const char *what, int *out);
/* str, bytes or os.PathLike as new bytes in the file system encoding. */
int ms_path_arg(PyObject *obj, const char *what, PyObject **out_bytes);
/* monostamp_clock_publish of `clock` into the state file args[0] (none or
 * None: the file it shares), for the private `call`(path=None, /): True,
 * False if it shares none and None was given, or NULL with the error
 * (module.c). */
PyObject *ms_publish(ms_state *st, monostamp_clock *clock, PyObject *const *args,
                     Py_ssize_t nargs, const char *call);

/* stamp_datetime.c: the aware datetime of a stamp (OverflowError outside
 * years 1..9999); the exec slot's datetime part. */
PyObject *ms_datetime_from_stamp(ms_state *st, int64_t utc_ns, int32_t offset_s);
/* A `cls` (NULL: datetime.datetime) of the wall time `w` with tzinfo `tz`. */
PyObject *ms_datetime_of_wall(PyObject *cls, const monostamp_wall *w, PyObject *tz, int fold);
int ms_datetime_exec(ms_state *st);
/* datetime.h's PyDateTimeAPI of the caller's file, `api`, set once per
 * process under `once` (a static of that file): 0, or -1 with the error. */
int ms_datetime_import_once(atomic_int *once, void **api);
/* An instant as int ns: int ns, a Stamp or an aware datetime. */
int ms_instant_ns_arg(ms_state *st, PyObject *obj, const char *what, int64_t *out);
/* The zone name behind Clock(zone=...): a str, a ZoneInfo's key (kept
 * alive in *keep) or 'UTC' for timezone.utc; NULL with TypeError else. */
const char *ms_zone_name_arg(PyObject *obj, PyObject **keep);

/* clock.c.  1 and the core clock if `obj` is a Clock, else 0. */
int ms_clock_core(PyObject *obj, monostamp_clock **out);
int ms_clock_default_new(ms_state *st, PyObject **out);
/* The Clock's own methods, with the module as self. */
extern PyMethodDef ms_default_functions[];
/* commands.c: what the package's commands ask the core. */
extern PyMethodDef ms_run_functions[];

/* Sorts FASTCALL arguments into `out` (NULL: not given) by the NULL-ended
 * `names`, with the interpreter's TypeErrors: the first `max_positional`
 * may be positional, the first `required` must be given. */
int ms_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames, const char *const *names, Py_ssize_t max_positional,
                  Py_ssize_t required, PyObject **out);

#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* ids.c: a clock's next id as a uuid.UUID, a block of n stamps as a
 * range; `call` names the caller in errors ("uuid7()", "take()"). */
PyObject *ms_draw_uuid7(ms_state *st, monostamp_clock *clock, const char *call);
PyObject *ms_draw_take(ms_state *st, monostamp_clock *clock, PyObject *arg, const char *call);
PyObject *ms_uuid7_ns(PyObject *module, PyObject *arg);
extern const char ms_uuid7_ns_doc[];
int ms_ids_traverse(ms_state *st, visitproc visit, void *arg);
void ms_ids_clear(ms_state *st);

/* sleep.c */
extern PyMethodDef ms_sleep_functions[];
extern PyType_Spec ms_sleep_plan_spec;
void ms_sleep_clear(ms_state *st);

#endif
