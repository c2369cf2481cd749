/*
 * module.h: what the files of the _monostamp extension share, laid out as
 * CPython's Modules/_sqlite/module.h is: the module state, the one function
 * that turns the core's error codes into exceptions, and the argument
 * converters.  Private to bindings/python/; nothing here is exported (the
 * extension is built with -fvisibility=hidden, and only PyInit__monostamp
 * is marked default).
 *
 * The extension is built for one CPython version (3.10 and later) on the
 * full C API, never the stable ABI: monostamp.patch() rewrites interpreter
 * internals (patch.h), which ties the wheel to one version anyway, and
 * the full API gives the datetime C API (stamp_datetime.c), struct
 * fields instead of slot lookups, and builds for free-threaded
 * interpreters, which have no stable ABI.
 */
#ifndef MONOSTAMP_PY_MODULE_H
#define MONOSTAMP_PY_MODULE_H

#include <Python.h>

#include <stdatomic.h>
#include <stdint.h>

#include "monostamp.h"

/* ---------------------------------------------------------------- state */

/* The four policies, the length of ms_state.policies. */
#define MS_POLICY_COUNT 4
/* Whole quarter-hour UTC offsets strictly within a day: -95..95. */
#define MS_TZ_QUARTERS 191

/*
 * Everything the module owns, set once by the exec slot and read-only
 * after it (the caches excepted, which are dicts): no lock is needed to
 * read it from any thread.
 */
typedef struct {
    PyTypeObject *stamp_type;
    PyTypeObject *clock_type;
    PyObject *lead_error;
    /* monostamp.Policy, and its members indexed by monostamp_policy, so
     * that every getter returns a member without a lookup. */
    PyObject *policy_type;
    PyObject *policies[MS_POLICY_COUNT];
    /* The names of the tzinfo methods stamp_datetime.c calls, interned. */
    PyObject *str_utcoffset, *str_fromutc;
    /* Caches: the pointers are set by exec and never change, but the
     * dicts fill as stamps are converted (dicts are thread-safe in
     * free-threaded builds too; each is bounded, see stamp_datetime.c).
     * tz_by_offset: int offset -> datetime.timezone; zones: zone name ->
     * capsule of an open monostamp_zone. */
    PyObject *tz_by_offset;
    PyObject *zones;
    /* The timezone of each whole quarter hour within a day: index
     * offset / 900 + MS_TZ_QUARTERS / 2 (ms_datetime_exec). */
    PyObject *tz_quarter[MS_TZ_QUARTERS];
    /* The default clock: a Clock wrapping the core's (clock.c), or
     * NULL if the core's was unusable when the module was executed (it then
     * stays so, and each function on it raises that error). */
    PyObject *default_clock;
    /* uuid.UUID and what building one needs, imported by the first
     * uuid7() call and published once (ids.c), or NULL before. */
    _Atomic(struct ms_uuid_refs *) uuid_refs;
    /* monostamp/_sleep.py's finish(deadline_ns, plan), which sleep() and
     * sleep_until_ns() call, or NULL: the core alone (sleep.c); the type of
     * the plan it is given. */
    PyTypeObject *sleep_plan_type;
    /* A plan kept from the last sleep for the next (sleep.c), or NULL. */
    _Atomic(PyObject *) sleep_plan_spare;
    /* The finish is set when the package is imported; the tests and the benchmark swap
     * it from the thread that sleeps.  Free-threaded, a swap racing a
     * sleep in another thread could free the old one under it. */
    PyObject *sleep_finish;
} ms_state;

/* The state of one of this module's types themselves: a subclass of
 * Stamp has none (see ms_stamp_root in stamp.h); Clock is final. */
static inline ms_state *ms_state_of_type(PyTypeObject *type)
{
    return (ms_state *)PyType_GetModuleState(type);
}

/* The types' specs, made into classes by the exec slot (module.c). */
extern PyType_Spec ms_stamp_spec;
extern PyType_Spec ms_clock_spec;

/* ------------------------------------------------------------ the Stamp */

/* A Stamp: 32 bytes, no references, not GC-tracked.  The layout is here
 * (not in stamp.c) so that Clock's now() (clock.c), which the module's
 * now() is too, can build one inline: it is the hot path. */
typedef struct {
    PyObject_HEAD
    int64_t utc_ns;
    int32_t offset;
} ms_stamp_object;

/* A new Stamp of `type`, Stamp itself (not a subclass, which may be
 * GC-tracked: see ms_stamp_of_class): the one allocation now() makes.
 * PyObject_New takes the reference to the heap type that the instance
 * holds; the Stamp's dealloc gives it back. */
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

/*
 * The one place the core's codes become exceptions (errors.c).  Raises
 * for `code` (< 0) and returns NULL.  The message is always the caller's
 * context, from the PyUnicode_FromFormat `fmt`, then ": " and the core's
 * reason (monostamp_strerror):
 *
 *   MONOSTAMP_EOS(err)                     OSError(err, message[, filename])
 *                                          (the errno subclass, e.g.
 *                                          FileNotFoundError)
 *   EINVAL ERANGE ENOTSUP ENOZONE ESYNTAX
 *   EFOREIGN EVERSION EPOLICY ENOTV7       ValueError(message)
 *   ELEAD                                  monostamp.LeadError(message)
 *   ENOMEM                                 MemoryError(message)
 *   a code this binding does not know      RuntimeError(message)
 *
 * `filename` (may be NULL) is the file involved, kept as the OSError's
 * filename.  `st` may be NULL only where `code` cannot be ELEAD.
 */
PyObject *raise_core(ms_state *st, int code, PyObject *filename, const char *fmt, ...);

/* Raises the error that makes the default clock unusable (naming
 * MONOSTAMP_SHARED when its file is to blame) and returns NULL.  `st` may
 * be NULL: that error is never ELEAD.  clock.c. */
PyObject *ms_default_clock_error(ms_state *st);

/* One shape for every message: "call(): what is wrong with which value --
 * what to do".  PyUnicode_FromFormat takes ASCII only, so the format
 * writes the dash as MS_DASH_ASCII, which ms_raise turns into an em dash.
 * Raises `type` with the message and returns NULL. */
#define MS_DASH_ASCII " -- "
PyObject *ms_raise(PyObject *type, const char *fmt, ...);
/* ValueError for a zone name monostamp_zone_open refused (`name`, its
 * UTF-8, may be NULL), with the core's "did you mean ...?"
 * (monostamp_zone_suggest) when it has one.  `call` is "Clock()". */
PyObject *ms_zone_error(const char *call, PyObject *zone, const char *name);
/* If `code` is ENOENT and the directory of `path` does not exist, raises
 * FileNotFoundError naming the missing directory as such and returns 1;
 * else returns 0 and raises nothing.  `what` is "Clock(): shared". */
int ms_missing_directory(const char *what, int code, PyObject *path);

/* TypeError "`what` must be `expected`, not <type name>"; returns -1. */
int ms_type_error(const char *what, const char *expected, PyObject *obj);

/* --------------------------------------------------------- converters */

/*
 * Each converter (convert.c) stores its result in *out and returns 0, or
 * returns -1 with TypeError for a wrong type and ValueError naming the
 * argument (`what`) and its value for a wrong value.
 */

/* The UTF-8 of the str `obj`, valid while `obj` lives, and its length.
 * With `no_nul`, text with an embedded NUL is refused. */
const char *ms_utf8_arg(PyObject *obj, const char *what, int no_nul, Py_ssize_t *len);
/* An int within int64. */
int ms_int64_arg(PyObject *obj, const char *what, int64_t *out);
/* Seconds (int or float) as whole ns, rounded up: a sleep is never
 * shorter than asked. */
int ms_seconds_arg(PyObject *obj, const char *what, int64_t *out);
/* A Policy member or its name, as a monostamp_policy. */
int ms_policy_arg(ms_state *st, PyObject *obj, const char *what, int *out);
/* Makes Policy and its members on first use (module.c); 0 or -1. */
int ms_policy_ready(ms_state *st);

/* A source name ('realtime', ...), as a monostamp_source. */
int ms_source_arg(PyObject *obj, const char *what, int *out);
/* An on_lead name ('wait' or 'error'), as a monostamp_on_lead. */
int ms_on_lead_arg(PyObject *obj, const char *what, int *out);
/* True or False, nothing else. */
int ms_bool_arg(PyObject *obj, const char *what, int *out);
/* A path (str, bytes or os.PathLike) as a new bytes object in the file
 * system encoding, without NULs: PyUnicode_FSConverter. */
int ms_path_arg(PyObject *obj, const char *what, PyObject **out_bytes);

/* The Policy member for `policy` (new reference). */
PyObject *ms_policy_object(ms_state *st, int policy);

/* The aware datetime.datetime of `utc_ns` at `offset_s`, truncated to the
 * microsecond toward the past; OverflowError outside years 1..9999. */
PyObject *ms_datetime_from_stamp(ms_state *st, int64_t utc_ns, int32_t offset_s);
/* stamp_datetime.c's part of the exec slot: datetime's C API for that
 * file, the interned names, the caches and the timezone table: 0 or -1. */
int ms_datetime_exec(ms_state *st);

/* --------------------------------------------------------- clocks */

/* stamp_datetime.c.  An instant as int ns since the epoch: an int (ns), a
 * Stamp (its utc_ns) or an aware datetime (as Stamp.fromdatetime reads
 * it), so that a test never writes nanoseconds by hand; `what` is
 * "Clock.set(): ns".  0 or -1. */
int ms_instant_ns_arg(ms_state *st, PyObject *obj, const char *what, int64_t *out);
/* The zone name behind Clock(zone=...): a str as it is, a
 * zoneinfo.ZoneInfo by its key (the name it was opened with: the core then
 * reads the same file, and *keep holds the key), datetime.timezone.utc as
 * 'UTC'.  Other tzinfos have no name the core could open: NULL with
 * TypeError saying what to give. */
const char *ms_zone_name_arg(PyObject *obj, PyObject **keep);

/* clock.c.  If `obj` is a monostamp.Clock, stores its core clock and
 * returns 1; else returns 0.  Never raises. */
int ms_clock_core(PyObject *obj, monostamp_clock **out);
/* The Clock wrapping the core's default clock into *out (NULL if that is
 * unusable), for the exec slot: 0, or -1 with the error. */
int ms_clock_default_new(ms_state *st, PyObject **out);
/* The module's functions on the default clock: the Clock's own methods,
 * with the module as self (clock.c), which the exec slot adds. */
extern PyMethodDef ms_default_functions[];

/*
 * Sorts METH_FASTCALL | METH_KEYWORDS arguments into `out` (borrowed
 * references, NULL where not given) by the NULL-terminated `names`: the
 * first `max_positional` may come by position, the first `required` must
 * come.  TypeError in the manner of the interpreter's own parser, naming
 * `fname`, for too many or too few arguments and unknown or repeated
 * keywords.  Returns 0 or -1.
 */
int ms_parse_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames, const char *const *names, Py_ssize_t max_positional,
                  Py_ssize_t required, PyObject **out);

/* A METH_FASTCALL | METH_KEYWORDS entry of a method table. */
#define FASTCALL_KW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* ------------------------------------------------------------- ids.c */

/* UUIDv7 ids and blocks of stamps: what Clock.uuid7() and Clock.take()
 * draw, and monostamp.uuid7_ns(). */
/* The next id of `clock` as a uuid.UUID, errors raised with the context
 * `call` ("uuid7()"). */
PyObject *ms_draw_uuid7(ms_state *st, monostamp_clock *clock, const char *call);
/* n = `arg` stamps of `clock` reserved, as range(first, stop, step);
 * errors name `fname` ("take()"). */
PyObject *ms_draw_take(ms_state *st, monostamp_clock *clock, PyObject *arg, const char *fname);

/* monostamp.uuid7_ns(), for module.c's method table. */
PyObject *ms_uuid7_ns(PyObject *module, PyObject *arg);
extern const char ms_uuid7_ns_doc[];

/* The references ids.c imports on first use (uuid is not imported with
 * monostamp: it costs milliseconds), for the module's traverse and clear. */
int ms_ids_traverse(ms_state *st, visitproc visit, void *arg);
void ms_ids_clear(ms_state *st);

/* -------------------------------------------------------------- sleep */

/* sleep(), sleep_until_ns() and _sleep_finish(), which the exec slot
 * adds; the type of the plan they hand the finish (sleep.c). */
extern PyMethodDef ms_sleep_functions[];
extern PyType_Spec ms_sleep_plan_spec;
void ms_sleep_clear(ms_state *st);

#endif
