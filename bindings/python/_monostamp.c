/*
 * _monostamp.c: the CPython extension over the monostamp core.
 *
 * Thin C (as in CPython's Modules/xxlimited.c: multi-phase init, module
 * state, heap types from specs) under a friendly Python package
 * (monostamp/__init__.py adds the Policy enum and clock_info's namespace).
 * The core does all the work; this file converts arguments, maps the
 * core's error codes in exactly one function (raise_core), and wraps the
 * two object kinds:
 *
 *   Stamp  an immutable (utc_ns, offset) pair, 32 bytes, not GC-tracked:
 *          it holds no references, so cycles cannot pass through it.
 *   Clock  a monostamp_clock embedded in the object, which never moves.
 *
 * now() and time_ns() are METH_NOARGS functions the package re-exports as
 * they are, so a call is one C call into the core and one allocation.
 */
#include "compat.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "monostamp.h"

/* ---------------------------------------------------------------- state */

typedef struct {
    PyTypeObject *stamp_type;
    PyTypeObject *clock_type;
    PyObject *lead_error;
    /* The four Policy members indexed by monostamp_policy, registered by
     * the package; NULL until then (policies are then returned as str). */
    PyObject *policies;
    /* The default clock once monostamp_default_clock() has given it (it
     * never changes after), else NULL: now() and time_ns() then ask again
     * and raise its error. */
    monostamp_clock *default_clock;
} ms_state;

static struct PyModuleDef ms_module;

static ms_state *state_of(PyObject *module)
{
    return (ms_state *)PyModule_GetState(module);
}

#if !MS_HAVE_TYPE_MODULE
#define MODULE_ATTR "__monostamp_module__"
#endif

/* The module (new reference) that made `type`, one of this module's types. */
static PyObject *module_of_type(PyTypeObject *type)
{
#if MS_HAVE_TYPE_MODULE
    PyObject *module = PyType_GetModule(type);
    Py_XINCREF(module);
    return module;
#else
    /* XXX: 3.8 and the 3.8 stable ABI have no PyType_GetModule; the module
     * is kept in an attribute of the type instead (see ms_exec). */
    PyObject *module = PyObject_GetAttrString((PyObject *)type, MODULE_ATTR);
    if (module != NULL && (!PyModule_Check(module) || PyModule_GetDef(module) != &ms_module)) {
        Py_DECREF(module);
        PyErr_SetString(PyExc_TypeError, "monostamp type detached from its module");
        return NULL;
    }
    return module;
#endif
}

/* ------------------------------------------------------- error mapping */

/*
 * Raises the Python exception for the core's code `rc` (< 0) and returns
 * NULL: the one place codes become exceptions.
 *
 *   EINVAL ERANGE ENOTSUP ENOZONE ESYNTAX  ValueError(message)
 *   EFOREIGN EVERSION                      ValueError naming `path`
 *   ESYSTEM                                OSError(errno, ..., path)
 *   ELEAD                                  monostamp.LeadError(message)
 *   ENOMEM                                 MemoryError
 *
 * `fmt` (PyUnicode_FromFormat) says what failed and names the values; NULL
 * uses the core's sentence.  `path` (may be NULL) is the file involved.
 * errno is read first, before any Python call can change it.
 */
static PyObject *raise_core(ms_state *st, int rc, PyObject *path, const char *fmt, ...)
{
    int saved_errno = errno;
    PyObject *type = PyExc_ValueError, *message;
    va_list va;

    switch (rc) {
    case MONOSTAMP_ENOMEM:
        return PyErr_NoMemory();
    case MONOSTAMP_ESYSTEM:
        errno = saved_errno;
        if (path != NULL)
            return PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
        return PyErr_SetFromErrno(PyExc_OSError);
    case MONOSTAMP_EFOREIGN:
        if (path != NULL)
            return PyErr_Format(PyExc_ValueError,
                                "%R is not a monostamp state file, or is truncated", path);
        break;
    case MONOSTAMP_EVERSION:
        if (path != NULL)
            return PyErr_Format(PyExc_ValueError,
                                "%R is a monostamp state file of another layout version", path);
        break;
    case MONOSTAMP_ELEAD:
        type = st != NULL ? st->lead_error : PyExc_RuntimeError;
        break;
    default:
        break;
    }
    if (fmt == NULL) {
        PyErr_SetString(type, monostamp_strerror(rc));
        return NULL;
    }
    va_start(va, fmt);
    message = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (message != NULL) {
        PyErr_SetObject(type, message);
        Py_DECREF(message);
    }
    return NULL;
}

/* The default clock, or NULL with the exception that makes it unusable
 * (a bad MONOSTAMP_SHARED file, named from the environment). */
static monostamp_clock *default_clock(ms_state *st)
{
    monostamp_clock *clock;
    int rc = monostamp_default_clock(&clock);
    if (rc == MONOSTAMP_OK)
        return clock;
    const char *shared = getenv("MONOSTAMP_SHARED");
    PyObject *path = shared != NULL ? PyUnicode_DecodeFSDefault(shared) : NULL;
    if (shared != NULL && path == NULL)
        return NULL;
    raise_core(st, rc, path, "the default clock is unusable (MONOSTAMP_SHARED=%R): %s",
               path != NULL ? path : Py_None, monostamp_strerror(rc));
    Py_XDECREF(path);
    return NULL;
}

/* ------------------------------------------------ argument conversions */

/* TypeError "`what` must be `expected`, not <type name>"; returns -1. */
static int type_error(const char *what, const char *expected, PyObject *obj)
{
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
    if (name == NULL)
        return -1;
    PyErr_Format(PyExc_TypeError, "%s must be %s, not %U", what, expected, name);
    Py_DECREF(name);
    return -1;
}

/* The UTF-8 of the str `obj` and its length; *owner (Py_XDECREF it when
 * done) keeps the bytes alive.  Embedded NULs are refused when `no_nul`. */
static const char *utf8_of(PyObject *obj, const char *what, int no_nul, Py_ssize_t *len,
                           PyObject **owner)
{
    const char *text;
    *owner = NULL;
    if (!PyUnicode_Check(obj)) {
        type_error(what, "str", obj);
        return NULL;
    }
#if MS_HAVE_AS_UTF8_AND_SIZE
    text = PyUnicode_AsUTF8AndSize(obj, len);
    if (text == NULL)
        return NULL;
#else
    char *bytes;
    *owner = PyUnicode_AsUTF8String(obj);
    if (*owner == NULL || PyBytes_AsStringAndSize(*owner, &bytes, len) < 0) {
        Py_CLEAR(*owner);
        return NULL;
    }
    text = bytes;
#endif
    if (no_nul && strlen(text) != (size_t)*len) {
        Py_CLEAR(*owner);
        PyErr_Format(PyExc_ValueError, "%s %R contains a NUL character", what, obj);
        return NULL;
    }
    return text;
}

/* An int argument as int64: TypeError if not an int, ValueError (naming
 * it) if outside int64.  Returns 0 or -1. */
static int int64_arg(PyObject *obj, const char *what, int64_t *out)
{
    if (!PyLong_Check(obj))
        return type_error(what, "int", obj);
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow) {
        PyErr_Format(PyExc_ValueError, "%s=%R is out of range for int64 nanoseconds", what, obj);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

/* Seconds (int or float) as whole ns, rounded up so a sleep is never
 * shorter than asked.  Returns 0 or -1. */
static int seconds_arg(PyObject *obj, const char *what, int64_t *out)
{
    if (PyLong_Check(obj)) {
        int64_t s;
        if (int64_arg(obj, what, &s) < 0)
            return -1;
        if (s > INT64_MAX / 1000000000 || s < INT64_MIN / 1000000000) {
            PyErr_Format(PyExc_ValueError, "%s=%R is out of range", what, obj);
            return -1;
        }
        *out = s * 1000000000;
        return 0;
    }
    if (!PyFloat_Check(obj))
        return type_error(what, "int or float", obj);
    double ns = ceil(PyFloat_AsDouble(obj) * 1e9);
    if (isnan(ns) || ns >= 9223372036854775808.0 || ns < -9223372036854775808.0) {
        PyErr_Format(PyExc_ValueError, "%s=%R is out of range", what, obj);
        return -1;
    }
    *out = (int64_t)ns;
    return 0;
}

static int policy_arg(ms_state *st, PyObject *obj, int *out)
{
    PyObject *owner;
    Py_ssize_t len;
    monostamp_policy policy;
    const char *name = utf8_of(obj, "policy", 0, &len, &owner);
    if (name == NULL)
        return -1;
    int rc = strlen(name) == (size_t)len ? monostamp_policy_from_name(name, &policy)
                                         : MONOSTAMP_EINVAL;
    Py_XDECREF(owner);
    if (rc != MONOSTAMP_OK) {
        raise_core(st, rc, NULL, "unknown policy %R (expected one of 'acceptPlatformTime', "
                   "'monotonicAllowDuplicates', 'monotonicForceMicrosecondIncrement', "
                   "'monotonicForceNanosecondIncrement')", obj);
        return -1;
    }
    *out = (int)policy;
    return 0;
}

static int source_arg(ms_state *st, PyObject *obj, int *out)
{
    PyObject *owner;
    Py_ssize_t len;
    monostamp_source source;
    const char *name = utf8_of(obj, "source", 0, &len, &owner);
    if (name == NULL)
        return -1;
    int rc = strlen(name) == (size_t)len ? monostamp_source_from_name(name, &source)
                                         : MONOSTAMP_EINVAL;
    Py_XDECREF(owner);
    if (rc != MONOSTAMP_OK) {
        raise_core(st, rc, NULL,
                   "unknown source %R (expected 'realtime', 'realtime_coarse' or 'manual')", obj);
        return -1;
    }
    *out = (int)source;
    return 0;
}

/* The policy as a Policy member (or its name, before registration). */
static PyObject *policy_object(ms_state *st, int policy)
{
    if (st->policies != NULL && policy >= 0 && policy < PyTuple_Size(st->policies)) {
        PyObject *member = PyTuple_GetItem(st->policies, policy);
        Py_XINCREF(member);
        return member;
    }
    const char *name = monostamp_policy_name(policy);
    return PyUnicode_FromString(name != NULL ? name : "?");
}

/* --------------------------------------------------------------- Stamp */

typedef struct {
    PyObject_HEAD
    int64_t utc_ns;
    int32_t offset;
} StampObject;

static PyObject *stamp_make(PyTypeObject *type, int64_t utc_ns, int32_t offset)
{
    /* PyObject_New takes the reference to the heap type that the instance
     * holds (3.8+); stamp_dealloc gives it back. */
    StampObject *self = PyObject_New(StampObject, type);
    if (self == NULL)
        return NULL;
    self->utc_ns = utc_ns;
    self->offset = offset;
    return (PyObject *)self;
}

static void stamp_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_Free(self);
    Py_DECREF(type);
}

PyDoc_STRVAR(stamp_doc,
"Stamp(utc_ns, offset=0)\n--\n\n"
"An instant and the UTC offset in force at it; immutable.\n\n"
"utc_ns is int nanoseconds since 1970-01-01T00:00:00Z, offset int seconds\n"
"east of UTC (|offset| < 86400).  A Stamp unpacks like the 2-tuple\n"
"(utc_ns, offset), compares and hashes by utc_ns, then offset, and\n"
"str() gives its isoformat().  Clocks make them: monostamp.now(),\n"
"Clock.now().");

static PyObject *stamp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"utc_ns", "offset", NULL};
    PyObject *ns_obj, *offset_obj = NULL;
    int64_t utc_ns, offset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:Stamp", keywords, &ns_obj, &offset_obj))
        return NULL;
    if (int64_arg(ns_obj, "utc_ns", &utc_ns) < 0)
        return NULL;
    if (offset_obj != NULL) {
        if (!PyLong_Check(offset_obj)) {
            type_error("offset", "int", offset_obj);
            return NULL;
        }
        int overflow;
        offset = PyLong_AsLongLongAndOverflow(offset_obj, &overflow);
        if (offset == -1 && PyErr_Occurred())
            return NULL;
        if (overflow || offset <= -86400 || offset >= 86400) {
            PyErr_Format(PyExc_ValueError,
                         "offset=%R is out of range: must be within +-86399 seconds", offset_obj);
            return NULL;
        }
    }
    return stamp_make(type, utc_ns, (int32_t)offset);
}

static PyObject *stamp_repr(PyObject *op)
{
    StampObject *self = (StampObject *)op;
    /* The numbers, never the ISO text: a repr must not fail. */
    return PyUnicode_FromFormat("monostamp.Stamp(utc_ns=%lld, offset=%d)",
                                (long long)self->utc_ns, (int)self->offset);
}

/* Formats the stamp: the text, or NULL with ValueError. */
static PyObject *stamp_format(StampObject *self, int digits, int use_z)
{
    char buf[MONOSTAMP_ISO8601_MAX + 1];
    int n = monostamp_format_iso8601(buf, sizeof buf, self->utc_ns, self->offset, digits, use_z);
    if (n < 0) {
        if (digits < 0 || digits > 9)
            return raise_core(NULL, n, NULL, "digits=%d is out of range: must be 0..9", digits);
        return raise_core(NULL, n, NULL,
                          "cannot format monostamp.Stamp(utc_ns=%lld, offset=%d) "
                          "as ISO 8601: %s", (long long)self->utc_ns, (int)self->offset,
                          monostamp_strerror(n));
    }
    return PyUnicode_FromStringAndSize(buf, n);
}

static PyObject *stamp_str(PyObject *self)
{
    return stamp_format((StampObject *)self, 9, 0);
}

PyDoc_STRVAR(stamp_isoformat_doc,
"isoformat(digits=9, z=False)\n--\n\n"
"The stamp as RFC 3339 text in its own offset:\n"
"'2026-12-02T15:11:20.123456789+01:00'.  digits (0..9) fractional\n"
"digits, truncated; z=True writes 'Z' for a zero offset.");

static PyObject *stamp_isoformat(PyObject *op, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"digits", "z", NULL};
    int digits = 9, use_z = 0;
    /* The common call has no arguments: skip the parser. */
    if ((PyTuple_Size(args) != 0 || kwds != NULL) &&
        !PyArg_ParseTupleAndKeywords(args, kwds, "|ip:isoformat", keywords, &digits, &use_z))
        return NULL;
    return stamp_format((StampObject *)op, digits, use_z);
}

/* The character index of byte `pos` in the UTF-8 `text`. */
static Py_ssize_t char_index(const char *text, size_t pos)
{
    Py_ssize_t n = 0;
    for (size_t i = 0; i < pos; i++)
        n += ((unsigned char)text[i] & 0xC0) != 0x80;
    return n;
}

PyDoc_STRVAR(stamp_fromisoformat_doc,
"fromisoformat(text, /)\n--\n\n"
"The Stamp that isoformat() wrote: 'YYYY-MM-DDThh:mm:ss[.f{1,9}]' and\n"
"'Z', '+hh:mm' or '+hhmm' ('T', 't' or ' ' between date and time),\n"
"exactly.  ValueError says where and why malformed text fails.");

static PyObject *stamp_fromisoformat(PyObject *cls, PyObject *text_obj)
{
    PyObject *owner;
    Py_ssize_t len;
    int64_t utc_ns;
    int32_t offset;
    monostamp_parse_error error = {0, NULL};
    const char *text = utf8_of(text_obj, "text", 0, &len, &owner);
    if (text == NULL)
        return NULL;
    int rc = monostamp_parse_iso8601(text, (size_t)len, &utc_ns, &offset, &error);
    if (rc != MONOSTAMP_OK) {
        Py_ssize_t at = char_index(text, error.position <= (size_t)len ? error.position
                                                                      : (size_t)len);
        raise_core(NULL, rc, NULL, "invalid ISO 8601 text %R at position %zd: %s", text_obj,
                   at, error.reason != NULL ? error.reason : monostamp_strerror(rc));
        Py_XDECREF(owner);
        return NULL;
    }
    Py_XDECREF(owner);
    return stamp_make((PyTypeObject *)cls, utc_ns, offset);
}

/* floor(ns / 1e9) and the remainder in [0, 1e9). */
static void split_seconds(int64_t ns, int64_t *sec, int64_t *rem)
{
    *sec = ns / 1000000000;
    *rem = ns % 1000000000;
    if (*rem < 0) {
        *rem += 1000000000;
        *sec -= 1;
    }
}

PyDoc_STRVAR(stamp_datetime_doc,
"datetime()\n--\n\n"
"The stamp as an aware datetime.datetime with a fixed-offset\n"
"datetime.timezone.  datetime holds microseconds: the last three digits\n"
"of utc_ns are dropped (truncated toward the past).  OverflowError\n"
"outside datetime's years 1..9999.");

static PyObject *stamp_datetime(PyObject *op, PyObject *unused)
{
    StampObject *self = (StampObject *)op;
    PyObject *mod, *offset = NULL, *tz = NULL, *epoch = NULL, *delta = NULL, *result = NULL;
    int64_t sec, rem;
    (void)unused;
    split_seconds(self->utc_ns, &sec, &rem);
    mod = PyImport_ImportModule("datetime");
    if (mod == NULL)
        return NULL;
    /* The local wall time is epoch-at-offset plus (sec + offset) seconds:
     * integer arithmetic in timedelta, exact to the microsecond. */
    offset = PyObject_CallMethod(mod, "timedelta", "iL", 0, (long long)self->offset);
    if (offset == NULL)
        goto done;
    tz = PyObject_CallMethod(mod, "timezone", "O", offset);
    if (tz == NULL)
        goto done;
    epoch = PyObject_CallMethod(mod, "datetime", "iiiiiiiO", 1970, 1, 1, 0, 0, 0, 0, tz);
    if (epoch == NULL)
        goto done;
    delta = PyObject_CallMethod(mod, "timedelta", "iLL", 0, (long long)sec + self->offset,
                                (long long)(rem / 1000));
    if (delta == NULL)
        goto done;
    result = PyNumber_Add(epoch, delta);
done:
    Py_XDECREF(delta);
    Py_XDECREF(epoch);
    Py_XDECREF(tz);
    Py_XDECREF(offset);
    Py_DECREF(mod);
    return result;
}

PyDoc_STRVAR(stamp_timestamp_doc,
"timestamp()\n--\n\n"
"Float seconds since the epoch, as time.time() gives (a double keeps\n"
"about a quarter of a microsecond today; utc_ns is exact).");

static PyObject *stamp_timestamp(PyObject *op, PyObject *unused)
{
    int64_t sec, rem;
    (void)unused;
    split_seconds(((StampObject *)op)->utc_ns, &sec, &rem);
    return PyFloat_FromDouble((double)sec + (double)rem * 1e-9);
}

static PyObject *stamp_reduce(PyObject *op, PyObject *unused)
{
    StampObject *self = (StampObject *)op;
    (void)unused;
    return Py_BuildValue("O(Li)", (PyObject *)Py_TYPE(op), (long long)self->utc_ns,
                         (int)self->offset);
}

static Py_ssize_t stamp_length(PyObject *self)
{
    (void)self;
    return 2;
}

static PyObject *stamp_item(PyObject *op, Py_ssize_t i)
{
    StampObject *self = (StampObject *)op;
    if (i == 0)
        return PyLong_FromLongLong(self->utc_ns);
    if (i == 1)
        return PyLong_FromLong(self->offset);
    PyErr_SetString(PyExc_IndexError, "Stamp index out of range");
    return NULL;
}

static PyObject *stamp_richcompare(PyObject *a, PyObject *b, int op)
{
    if (Py_TYPE(a) != Py_TYPE(b))
        Py_RETURN_NOTIMPLEMENTED;
    StampObject *x = (StampObject *)a, *y = (StampObject *)b;
    int c = x->utc_ns != y->utc_ns ? (x->utc_ns < y->utc_ns ? -1 : 1)
          : x->offset != y->offset ? (x->offset < y->offset ? -1 : 1) : 0;
    int r;
    switch (op) {
    case Py_LT: r = c < 0; break;
    case Py_LE: r = c <= 0; break;
    case Py_EQ: r = c == 0; break;
    case Py_NE: r = c != 0; break;
    case Py_GT: r = c > 0; break;
    default: r = c >= 0; break;
    }
    return PyBool_FromLong(r);
}

static Py_hash_t stamp_hash(PyObject *op)
{
    StampObject *self = (StampObject *)op;
    Py_uhash_t h = (Py_uhash_t)(uint64_t)self->utc_ns;
    h = (h ^ (h >> 31)) * (Py_uhash_t)1000003;
    h ^= (Py_uhash_t)(uint32_t)self->offset;
    return h == (Py_uhash_t)-1 ? -2 : (Py_hash_t)h;
}

static PyMemberDef stamp_members[] = {
    {"utc_ns", MS_T_LONGLONG, offsetof(StampObject, utc_ns), MS_READONLY,
     "int nanoseconds since 1970-01-01T00:00:00Z."},
    {"offset", MS_T_INT, offsetof(StampObject, offset), MS_READONLY,
     "int seconds east of UTC in force at utc_ns."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef stamp_methods[] = {
    {"isoformat", (PyCFunction)(void (*)(void))stamp_isoformat, METH_VARARGS | METH_KEYWORDS,
     stamp_isoformat_doc},
    {"fromisoformat", stamp_fromisoformat, METH_O | METH_CLASS, stamp_fromisoformat_doc},
    {"datetime", stamp_datetime, METH_NOARGS, stamp_datetime_doc},
    {"timestamp", stamp_timestamp, METH_NOARGS, stamp_timestamp_doc},
    {"__reduce__", stamp_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot stamp_slots[] = {
    {Py_tp_doc, (void *)stamp_doc},
    {Py_tp_new, stamp_new},
    {Py_tp_dealloc, stamp_dealloc},
    {Py_tp_repr, stamp_repr},
    {Py_tp_str, stamp_str},
    {Py_tp_hash, stamp_hash},
    {Py_tp_richcompare, stamp_richcompare},
    {Py_tp_members, stamp_members},
    {Py_tp_methods, stamp_methods},
    {Py_sq_length, stamp_length},
    {Py_sq_item, stamp_item},
    {0, NULL},
};

static PyType_Spec stamp_spec = {
    "monostamp.Stamp", sizeof(StampObject), 0,
    Py_TPFLAGS_DEFAULT | MS_TPFLAGS_IMMUTABLE, stamp_slots,
};

/* --------------------------------------------------------------- Clock */

typedef struct {
    PyObject_HEAD
    PyObject *module;      /* keeps `st` alive */
    ms_state *st;
    PyObject *shared;      /* the shared= argument, or None */
    int64_t max_lead_ns;
    int on_lead;
    int may_wait;          /* now() may sleep: release the GIL around it */
    monostamp_clock clock; /* initialised once, never moved */
} ClockObject;

static const char *const on_lead_names[] = {"wait", "error"}; /* by monostamp_on_lead */

PyDoc_STRVAR(clock_doc,
"Clock(policy='monotonicForceNanosecondIncrement', *, source='realtime',\n"
"      zone=None, max_lead_ns=0, on_lead='wait', shared=None, start_ns=None)\n"
"--\n\n"
"A clock of its own: unique, monotonic stamps under `policy` (a Policy or\n"
"its name) from `source` ('realtime', 'realtime_coarse' or 'manual'), with\n"
"offsets from `zone` (None: the local zone; 'UTC', an IANA name or a POSIX\n"
"TZ string).  max_lead_ns > 0 bounds how far stamps may run ahead of the\n"
"source; on_lead says what then happens: 'wait' for the source, or\n"
"'error' (LeadError).  shared names a state file that joins every process\n"
"using it into one sequence.  start_ns is the manual source's first\n"
"reading.  Thread-safe.");

static PyObject *clock_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"policy", "source", "zone", "max_lead_ns", "on_lead",
                               "shared", "start_ns", NULL};
    PyObject *policy_obj = NULL, *source_obj = NULL, *zone_obj = Py_None,
             *max_lead_obj = NULL, *on_lead_obj = NULL, *shared_obj = Py_None,
             *start_obj = Py_None;
    PyObject *zone_owner = NULL, *shared_bytes = NULL, *module;
    ClockObject *self = NULL;
    monostamp_options options;
    ms_state *st;
    Py_ssize_t len;
    int rc;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$OOOOOO:Clock", keywords, &policy_obj,
                                     &source_obj, &zone_obj, &max_lead_obj, &on_lead_obj,
                                     &shared_obj, &start_obj))
        return NULL;
    module = module_of_type(type);
    if (module == NULL)
        return NULL;
    st = state_of(module);

    /* Every argument is converted and checked before the core sees any. */
    monostamp_options_init(&options);
    if (policy_obj != NULL && policy_arg(st, policy_obj, &options.policy) < 0)
        goto fail;
    if (source_obj != NULL && source_arg(st, source_obj, &options.source) < 0)
        goto fail;
    if (zone_obj != Py_None &&
        (options.zone = utf8_of(zone_obj, "zone", 1, &len, &zone_owner)) == NULL)
        goto fail;
    if (max_lead_obj != NULL && int64_arg(max_lead_obj, "max_lead_ns", &options.max_lead_ns) < 0)
        goto fail;
    if (on_lead_obj != NULL) {
        PyObject *owner;
        const char *name = utf8_of(on_lead_obj, "on_lead", 0, &len, &owner);
        if (name == NULL)
            goto fail;
        options.on_lead = -1;
        for (int i = 0; i < 2; i++)
            if (strcmp(name, on_lead_names[i]) == 0 && strlen(name) == (size_t)len)
                options.on_lead = i;
        Py_XDECREF(owner);
        if (options.on_lead < 0) {
            raise_core(st, MONOSTAMP_EINVAL, NULL,
                       "unknown on_lead %R (expected 'wait' or 'error')", on_lead_obj);
            goto fail;
        }
    }
    if (shared_obj != Py_None) {
        if (!PyUnicode_FSConverter(shared_obj, &shared_bytes))
            goto fail;
        options.shared_path = PyBytes_AsString(shared_bytes);
        if (options.shared_path == NULL)
            goto fail;
    }
    if (start_obj != Py_None) {
        if (int64_arg(start_obj, "start_ns", &options.start_ns) < 0)
            goto fail;
        options.has_start_ns = 1;
    }

    self = (ClockObject *)PyType_GenericAlloc(type, 0);
    if (self == NULL)
        goto fail;
    rc = monostamp_clock_init(&self->clock, &options);
    if (rc != MONOSTAMP_OK) {
        /* The clock needs no destroy; dealloc must not run it either. */
        memset(&self->clock, 0, sizeof self->clock);
        if (rc == MONOSTAMP_ENOZONE)
            raise_core(st, rc, NULL, "unknown or malformed time zone %R", zone_obj);
        else
            raise_core(st, rc, shared_obj,
                       "invalid Clock arguments (source='%s', zone=%R, max_lead_ns=%lld, "
                       "start_ns=%R): %s; max_lead_ns must be >= 0, start_ns needs "
                       "source='manual', a zone name at most %d bytes",
                       monostamp_source_name(options.source), zone_obj,
                       (long long)options.max_lead_ns, start_obj,
                       monostamp_strerror(rc), MONOSTAMP_ZONE_NAME_MAX);
        goto fail;
    }
    self->module = module;
    module = NULL;
    self->st = st;
    Py_INCREF(shared_obj);
    self->shared = shared_obj;
    self->max_lead_ns = options.max_lead_ns;
    self->on_lead = options.on_lead;
    self->may_wait = options.max_lead_ns > 0 && options.on_lead == MONOSTAMP_ON_LEAD_WAIT &&
                     options.source != MONOSTAMP_SOURCE_MANUAL;
    Py_XDECREF(zone_owner);
    Py_XDECREF(shared_bytes);
    return (PyObject *)self;

fail:
    Py_XDECREF((PyObject *)self);
    Py_XDECREF(module);
    Py_XDECREF(zone_owner);
    Py_XDECREF(shared_bytes);
    return NULL;
}

static int clock_traverse(PyObject *op, visitproc visit, void *arg)
{
    ClockObject *self = (ClockObject *)op;
    Py_VISIT(Py_TYPE(op)); /* instances of heap types own their type */
    Py_VISIT(self->module);
    Py_VISIT(self->shared);
    return 0;
}

static int clock_clear(PyObject *op)
{
    ClockObject *self = (ClockObject *)op;
    /* Only Python references: the core clock lives until dealloc, so a
     * clock reached during cycle collection still works. */
    Py_CLEAR(self->shared);
    return 0;
}

static void clock_dealloc(PyObject *op)
{
    ClockObject *self = (ClockObject *)op;
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    monostamp_clock_destroy(&self->clock);
    Py_CLEAR(self->shared);
    Py_CLEAR(self->module);
    PyObject_GC_Del(op);
    Py_DECREF(type);
}

/* Raises for a failed stamp from this clock. */
static PyObject *clock_error(ClockObject *self, int rc, const char *call)
{
    if (rc == MONOSTAMP_ELEAD)
        return raise_core(self->st, rc, NULL,
                          "%s: the stamp would lead the clock's source by more than "
                          "max_lead_ns=%lld", call, (long long)self->max_lead_ns);
    if (rc == MONOSTAMP_ERANGE)
        return raise_core(self->st, rc, NULL,
                          "%s: the next stamp would pass the largest int64 nanosecond", call);
    return raise_core(self->st, rc, NULL, "%s: %s", call, monostamp_strerror(rc));
}

PyDoc_STRVAR(clock_now_doc,
"now()\n--\n\n"
"The clock's next Stamp.  LeadError under on_lead='error' (and on manual\n"
"clocks) when the stamp would lead the source by more than max_lead_ns.");

static PyObject *clock_now(PyObject *op, PyObject *unused)
{
    ClockObject *self = (ClockObject *)op;
    monostamp_stamp stamp;
    int rc;
    (void)unused;
    if (self->may_wait) {
        Py_BEGIN_ALLOW_THREADS
        rc = monostamp_now(&self->clock, &stamp);
        Py_END_ALLOW_THREADS
    } else {
        rc = monostamp_now(&self->clock, &stamp);
    }
    if (rc != MONOSTAMP_OK)
        return clock_error(self, rc, "now()");
    return stamp_make(self->st->stamp_type, stamp.utc_ns, stamp.offset_s);
}

PyDoc_STRVAR(clock_time_ns_doc,
"time_ns()\n--\n\n"
"The clock's next stamp's instant alone, int ns: one sequence with now().");

static PyObject *clock_time_ns(PyObject *op, PyObject *unused)
{
    ClockObject *self = (ClockObject *)op;
    int64_t ns;
    int rc;
    (void)unused;
    if (self->may_wait) {
        Py_BEGIN_ALLOW_THREADS
        rc = monostamp_time_ns(&self->clock, &ns);
        Py_END_ALLOW_THREADS
    } else {
        rc = monostamp_time_ns(&self->clock, &ns);
    }
    if (rc != MONOSTAMP_OK)
        return clock_error(self, rc, "time_ns()");
    return PyLong_FromLongLong(ns);
}

static PyObject *clock_manual(ClockObject *self, PyObject *arg, const char *name,
                              int (*op)(monostamp_clock *, int64_t))
{
    int64_t ns;
    if (int64_arg(arg, "ns", &ns) < 0)
        return NULL;
    int rc = op(&self->clock, ns);
    if (rc == MONOSTAMP_ENOTSUP)
        return raise_core(self->st, rc, NULL,
                          "%s() needs a manual clock; this clock's source is '%s'", name,
                          monostamp_source_name(monostamp_clock_source(&self->clock)));
    if (rc == MONOSTAMP_ERANGE)
        return raise_core(self->st, rc, NULL,
                          "%s(%R) would move the reading past the int64 nanosecond range",
                          name, arg);
    if (rc != MONOSTAMP_OK)
        return raise_core(self->st, rc, NULL, "%s(%R): %s", name, arg, monostamp_strerror(rc));
    Py_RETURN_NONE;
}

PyDoc_STRVAR(clock_set_doc,
"set(ns, /)\n--\n\n"
"Manual clocks: sets the source's reading to ns (int ns since the epoch).\n"
"Stamps still follow the policy: setting it back does not make them go\n"
"back unless the policy is acceptPlatformTime.");

static PyObject *clock_set(PyObject *op, PyObject *arg)
{
    return clock_manual((ClockObject *)op, arg, "set", monostamp_manual_set);
}

PyDoc_STRVAR(clock_advance_doc,
"advance(ns, /)\n--\n\n"
"Manual clocks: moves the source's reading by ns (negative steps back).");

static PyObject *clock_advance(PyObject *op, PyObject *arg)
{
    return clock_manual((ClockObject *)op, arg, "advance", monostamp_manual_advance);
}

/* Adds key: PyLong(value) to dict; -1 on failure. */
static int put_int(PyObject *dict, const char *key, PyObject *value)
{
    if (value == NULL)
        return -1;
    int rc = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return rc;
}

PyDoc_STRVAR(clock_stats_doc,
"stats()\n--\n\n"
"The core's counters, cumulative since the clock began, as a dict:\n"
"readings, backward_steps, largest_backward_ns, duplicates,\n"
"forced_increments, lead_ns, max_lead_ns, lead_waits, lead_errors.");

static PyObject *clock_stats(PyObject *op, PyObject *unused)
{
    monostamp_stats s;
    (void)unused;
    monostamp_clock_stats(&((ClockObject *)op)->clock, &s);
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (put_int(d, "readings", PyLong_FromUnsignedLongLong(s.readings)) < 0 ||
        put_int(d, "backward_steps", PyLong_FromUnsignedLongLong(s.backward_steps)) < 0 ||
        put_int(d, "largest_backward_ns", PyLong_FromLongLong(s.largest_backward_ns)) < 0 ||
        put_int(d, "duplicates", PyLong_FromUnsignedLongLong(s.duplicates)) < 0 ||
        put_int(d, "forced_increments", PyLong_FromUnsignedLongLong(s.forced_increments)) < 0 ||
        put_int(d, "lead_ns", PyLong_FromLongLong(s.lead_ns)) < 0 ||
        put_int(d, "max_lead_ns", PyLong_FromLongLong(s.max_lead_ns)) < 0 ||
        put_int(d, "lead_waits", PyLong_FromUnsignedLongLong(s.lead_waits)) < 0 ||
        put_int(d, "lead_errors", PyLong_FromUnsignedLongLong(s.lead_errors)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *clock_repr(PyObject *op)
{
    ClockObject *self = (ClockObject *)op;
    const char *zone = monostamp_zone_name(monostamp_clock_zone(&self->clock));
    int policy = monostamp_clock_policy(&self->clock);
    return PyUnicode_FromFormat("monostamp.Clock(policy='%s', source='%s', zone=%s%s%s, "
                                "max_lead_ns=%lld, on_lead='%s', shared=%R)",
                                monostamp_policy_name(policy),
                                monostamp_source_name(monostamp_clock_source(&self->clock)),
                                zone[0] ? "'" : "", zone[0] ? zone : "None", zone[0] ? "'" : "",
                                (long long)self->max_lead_ns, on_lead_names[self->on_lead],
                                self->shared != NULL ? self->shared : Py_None);
}

static PyObject *clock_get_policy(PyObject *op, void *closure)
{
    ClockObject *self = (ClockObject *)op;
    (void)closure;
    return policy_object(self->st, monostamp_clock_policy(&self->clock));
}

static int clock_set_policy(PyObject *op, PyObject *value, void *closure)
{
    ClockObject *self = (ClockObject *)op;
    int policy;
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete a clock's policy");
        return -1;
    }
    if (policy_arg(self->st, value, &policy) < 0)
        return -1;
    int rc = monostamp_clock_set_policy(&self->clock, policy);
    if (rc != MONOSTAMP_OK) {
        raise_core(self->st, rc, NULL, "unknown policy %R", value);
        return -1;
    }
    return 0;
}

static PyObject *clock_get_source(PyObject *op, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(
        monostamp_source_name(monostamp_clock_source(&((ClockObject *)op)->clock)));
}

static PyObject *clock_get_zone(PyObject *op, void *closure)
{
    (void)closure;
    const char *name = monostamp_zone_name(monostamp_clock_zone(&((ClockObject *)op)->clock));
    if (name == NULL || name[0] == '\0')
        Py_RETURN_NONE;
    return PyUnicode_FromString(name);
}

static PyObject *clock_get_shared(PyObject *op, void *closure)
{
    ClockObject *self = (ClockObject *)op;
    (void)closure;
    PyObject *shared = self->shared != NULL ? self->shared : Py_None;
    Py_INCREF(shared);
    return shared;
}

static PyObject *clock_get_max_lead_ns(PyObject *op, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong(((ClockObject *)op)->max_lead_ns);
}

static PyObject *clock_get_on_lead(PyObject *op, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(on_lead_names[((ClockObject *)op)->on_lead]);
}

static PyGetSetDef clock_getset[] = {
    {"policy", clock_get_policy, clock_set_policy,
     "The clock's Policy; assign a Policy or its name to change it.", NULL},
    {"source", clock_get_source, NULL, "The source's name.", NULL},
    {"zone", clock_get_zone, NULL, "The zone's name, or None for the local zone.", NULL},
    {"shared", clock_get_shared, NULL, "The shared state file given, or None.", NULL},
    {"max_lead_ns", clock_get_max_lead_ns, NULL, "The lead bound in ns (0: none).", NULL},
    {"on_lead", clock_get_on_lead, NULL, "'wait' or 'error'.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef clock_methods[] = {
    {"now", clock_now, METH_NOARGS, clock_now_doc},
    {"time_ns", clock_time_ns, METH_NOARGS, clock_time_ns_doc},
    {"set", clock_set, METH_O, clock_set_doc},
    {"advance", clock_advance, METH_O, clock_advance_doc},
    {"stats", clock_stats, METH_NOARGS, clock_stats_doc},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot clock_slots[] = {
    {Py_tp_doc, (void *)clock_doc},
    {Py_tp_new, clock_new},
    {Py_tp_dealloc, clock_dealloc},
    {Py_tp_traverse, clock_traverse},
    {Py_tp_clear, clock_clear},
    {Py_tp_repr, clock_repr},
    {Py_tp_methods, clock_methods},
    {Py_tp_getset, clock_getset},
    {0, NULL},
};

static PyType_Spec clock_spec = {
    "monostamp.Clock", sizeof(ClockObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | MS_TPFLAGS_IMMUTABLE, clock_slots,
};

/* ----------------------------------------------------- module functions */

PyDoc_STRVAR(now_doc,
"now()\n--\n\n"
"The next Stamp from the process's default clock: realtime source, local\n"
"zone, the policy set_policy() chose; shared with fork()ed children, and\n"
"with every process whose MONOSTAMP_SHARED names the same file.");

static PyObject *ms_now(PyObject *module, PyObject *unused)
{
    ms_state *st = state_of(module);
    monostamp_stamp stamp;
    (void)unused;
    if (st->default_clock == NULL && (st->default_clock = default_clock(st)) == NULL)
        return NULL;
    int rc = monostamp_now(st->default_clock, &stamp);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "now(): %s", monostamp_strerror(rc));
    return stamp_make(st->stamp_type, stamp.utc_ns, stamp.offset_s);
}

PyDoc_STRVAR(time_ns_doc,
"time_ns()\n--\n\n"
"The default clock's next stamp, int ns since the epoch only: like\n"
"time.time_ns(), but unique and monotonic under the default policy.");

static PyObject *ms_time_ns(PyObject *module, PyObject *unused)
{
    ms_state *st = state_of(module);
    int64_t ns;
    (void)unused;
    if (st->default_clock == NULL && (st->default_clock = default_clock(st)) == NULL)
        return NULL;
    int rc = monostamp_time_ns(st->default_clock, &ns);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "time_ns(): %s", monostamp_strerror(rc));
    return PyLong_FromLongLong(ns);
}

PyDoc_STRVAR(get_policy_doc,
"get_policy()\n--\n\n"
"The default clock's Policy (Squeak's `Time clockPolicy`).");

static PyObject *ms_get_policy(PyObject *module, PyObject *unused)
{
    ms_state *st = state_of(module);
    (void)unused;
    if (default_clock(st) == NULL)
        return NULL;
    return policy_object(st, monostamp_get_policy());
}

PyDoc_STRVAR(set_policy_doc,
"set_policy(policy, /)\n--\n\n"
"Sets the default clock's Policy (a Policy or its name) for the next\n"
"stamp, in this process and every process sharing its state.");

static PyObject *ms_set_policy(PyObject *module, PyObject *arg)
{
    ms_state *st = state_of(module);
    int policy;
    if (policy_arg(st, arg, &policy) < 0 || default_clock(st) == NULL)
        return NULL;
    int rc = monostamp_set_policy(policy);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "set_policy(%R): %s", arg, monostamp_strerror(rc));
    Py_RETURN_NONE;
}

PyDoc_STRVAR(clock_info_doc,
"clock_info(source, /)\n--\n\n"
"Facts about a source as a dict: name, implementation, resolution (float\n"
"s), resolution_ns, adjustable, monotonic.  monostamp.clock_info wraps it\n"
"in a namespace, like time.get_clock_info().");

static PyObject *ms_clock_info(PyObject *module, PyObject *arg)
{
    ms_state *st = state_of(module);
    monostamp_clock_info info;
    int source;
    if (source_arg(st, arg, &source) < 0)
        return NULL;
    int rc = monostamp_clock_info_get(source, &info);
    if (rc == MONOSTAMP_ENOTSUP)
        return raise_core(st, rc, NULL, "source %R is not available on this platform", arg);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, NULL, "clock_info(%R): %s", arg, monostamp_strerror(rc));
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
    ms_state *st = state_of(module);
    PyObject *bytes = NULL;
    if (default_clock(st) == NULL || !PyUnicode_FSConverter(arg, &bytes))
        return NULL;
    int rc = monostamp_default_share(PyBytes_AsString(bytes));
    Py_DECREF(bytes);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, arg, "_share_default(%R): %s", arg, monostamp_strerror(rc));
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

/* Sleeps to `deadline_ns` in slices, the GIL released, checking for
 * signals between them: the core resumes after signals, so one long sleep
 * would keep Ctrl-C waiting.  The deadline is absolute, so slicing adds no
 * lateness.  Returns 0 or -1. */
#define SLICE_NS INT64_C(50000000)
static int sleep_until(ms_state *st, int64_t deadline_ns, int64_t tolerance_ns,
                       const char *call, PyObject *arg)
{
    for (;;) {
        int64_t now = monostamp_monotonic_ns();
        int last = deadline_ns - now <= SLICE_NS;
        int64_t target = last ? deadline_ns : now + SLICE_NS;
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = monostamp_sleep_until(target, last ? tolerance_ns : SLICE_NS / 10);
        Py_END_ALLOW_THREADS
        if (rc != MONOSTAMP_OK) {
            raise_core(st, rc, NULL, "%s(%R): %s", call, arg, monostamp_strerror(rc));
            return -1;
        }
        if (PyErr_CheckSignals() < 0)
            return -1;
        if (last)
            return 0;
    }
}

PyDoc_STRVAR(sleep_doc,
"sleep(seconds, tolerance=5e-05)\n--\n\n"
"Sleeps `seconds` (int or float, >= 0) on CLOCK_MONOTONIC, waking no\n"
"earlier and at most `tolerance` seconds later where the machine allows.\n"
"Releases the GIL; signal handlers run at least every 50 ms.");

static PyObject *ms_sleep(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"seconds", "tolerance", NULL};
    PyObject *seconds_obj, *tolerance_obj = NULL;
    int64_t duration, tolerance = MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS;
    ms_state *st = state_of(module);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:sleep", keywords, &seconds_obj,
                                     &tolerance_obj) ||
        seconds_arg(seconds_obj, "seconds", &duration) < 0 ||
        (tolerance_obj != NULL && seconds_arg(tolerance_obj, "tolerance", &tolerance) < 0))
        return NULL;
    if (duration < 0 || tolerance < 0)
        return raise_core(st, MONOSTAMP_EINVAL, NULL,
                          "sleep(%R, tolerance=%R): seconds and tolerance must be >= 0",
                          seconds_obj, tolerance_obj != NULL ? tolerance_obj : Py_None);
    int64_t now = monostamp_monotonic_ns();
    if (duration > INT64_MAX - now)
        return raise_core(st, MONOSTAMP_ERANGE, NULL, "sleep(%R): the deadline is out of range",
                          seconds_obj);
    if (sleep_until(st, now + duration, tolerance, "sleep", seconds_obj) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(sleep_until_ns_doc,
"sleep_until_ns(deadline_ns, tolerance_ns=50000)\n--\n\n"
"Sleeps until monotonic_ns() reaches deadline_ns (a past one returns at\n"
"once), waking at most tolerance_ns later where the machine allows.\n"
"Releases the GIL.");

static PyObject *ms_sleep_until_ns(PyObject *module, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"deadline_ns", "tolerance_ns", NULL};
    PyObject *deadline_obj, *tolerance_obj = NULL;
    int64_t deadline, tolerance = MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS;
    ms_state *st = state_of(module);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:sleep_until_ns", keywords, &deadline_obj,
                                     &tolerance_obj) ||
        int64_arg(deadline_obj, "deadline_ns", &deadline) < 0 ||
        (tolerance_obj != NULL && int64_arg(tolerance_obj, "tolerance_ns", &tolerance) < 0))
        return NULL;
    if (tolerance < 0)
        return raise_core(st, MONOSTAMP_EINVAL, NULL,
                          "sleep_until_ns(): tolerance_ns=%R must be >= 0", tolerance_obj);
    if (sleep_until(st, deadline, tolerance, "sleep_until_ns", deadline_obj) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *ms_set_policy_enum(PyObject *module, PyObject *policy_type)
{
    ms_state *st = state_of(module);
    PyObject *members = PyTuple_New(4);
    if (members == NULL)
        return NULL;
    for (int p = 0; p < 4; p++) {
        PyObject *member = PyObject_CallFunction(policy_type, "s", monostamp_policy_name(p));
        if (member == NULL) {
            Py_DECREF(members);
            return NULL;
        }
        PyTuple_SetItem(members, p, member);
    }
    PyObject *old = st->policies;
    st->policies = members;
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef ms_methods[] = {
    {"now", ms_now, METH_NOARGS, now_doc},
    {"time_ns", ms_time_ns, METH_NOARGS, time_ns_doc},
    {"get_policy", ms_get_policy, METH_NOARGS, get_policy_doc},
    {"set_policy", ms_set_policy, METH_O, set_policy_doc},
    {"clock_info", ms_clock_info, METH_O, clock_info_doc},
    {"zone_changed", ms_zone_changed, METH_NOARGS, zone_changed_doc},
    {"monotonic_ns", ms_monotonic_ns, METH_NOARGS, monotonic_ns_doc},
    {"sleep", (PyCFunction)(void (*)(void))ms_sleep, METH_VARARGS | METH_KEYWORDS, sleep_doc},
    {"sleep_until_ns", (PyCFunction)(void (*)(void))ms_sleep_until_ns,
     METH_VARARGS | METH_KEYWORDS, sleep_until_ns_doc},
    {"_share_default", ms_share_default, METH_O, share_default_doc},
    {"_set_policy_enum", ms_set_policy_enum, METH_O,
     "Registers the Policy enum whose members policies are returned as."},
    {NULL, NULL, 0, NULL},
};

/* --------------------------------------------------------------- module */

static PyTypeObject *add_type(PyObject *module, PyType_Spec *spec)
{
#if MS_HAVE_TYPE_MODULE
    PyObject *type = PyType_FromModuleAndSpec(module, spec, NULL);
#else
    PyObject *type = PyType_FromSpec(spec);
    if (type != NULL && PyObject_SetAttrString(type, MODULE_ATTR, module) < 0)
        Py_CLEAR(type);
#endif
    if (type == NULL)
        return NULL;
    const char *dot = strrchr(spec->name, '.');
    Py_INCREF(type);
    if (PyModule_AddObject(module, dot + 1, type) < 0) {
        Py_DECREF(type);
        Py_DECREF(type);
        return NULL;
    }
    return (PyTypeObject *)type;
}

PyDoc_STRVAR(lead_error_doc,
"A clock's stamp would lead its source by more than max_lead_ns and the\n"
"clock's on_lead is 'error' (manual clocks always error).  A RuntimeError:\n"
"it is the clock's state, not the call's arguments, that is at fault.");

static int ms_exec(PyObject *module)
{
    ms_state *st = state_of(module);
    if ((st->stamp_type = add_type(module, &stamp_spec)) == NULL ||
        (st->clock_type = add_type(module, &clock_spec)) == NULL)
        return -1;
    st->lead_error = PyErr_NewExceptionWithDoc("monostamp.LeadError", lead_error_doc,
                                               PyExc_RuntimeError, NULL);
    if (st->lead_error == NULL)
        return -1;
    Py_INCREF(st->lead_error);
    if (PyModule_AddObject(module, "LeadError", st->lead_error) < 0) {
        Py_DECREF(st->lead_error);
        return -1;
    }
    if (PyModule_AddStringConstant(module, "__version__", MONOSTAMP_VERSION) < 0 ||
        PyModule_AddIntConstant(module, "DEFAULT_SLEEP_TOLERANCE_NS",
                                MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS) < 0)
        return -1;
    return 0;
}

static int ms_traverse(PyObject *module, visitproc visit, void *arg)
{
    ms_state *st = state_of(module);
    Py_VISIT(st->stamp_type);
    Py_VISIT(st->clock_type);
    Py_VISIT(st->lead_error);
    Py_VISIT(st->policies);
    return 0;
}

static int ms_clear(PyObject *module)
{
    ms_state *st = state_of(module);
    Py_CLEAR(st->stamp_type);
    Py_CLEAR(st->clock_type);
    Py_CLEAR(st->lead_error);
    Py_CLEAR(st->policies);
    return 0;
}

static void ms_free(void *module)
{
    ms_clear((PyObject *)module);
}

static PyModuleDef_Slot ms_slots[] = {
    {Py_mod_exec, ms_exec},
#ifdef Py_mod_multiple_interpreters
    /* The core's only process-wide state is the default clock, which is
     * thread-safe and holds no Python objects. */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
    /* The core is lock-free and thread-safe; objects hold no mutable
     * Python state (a Clock's policy is the core's atomic). */
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(ms_doc,
"The monostamp core, as CPython objects: use the monostamp package.");

static struct PyModuleDef ms_module = {
    PyModuleDef_HEAD_INIT,
    "_monostamp",
    ms_doc,
    sizeof(ms_state),
    ms_methods,
    ms_slots,
    ms_traverse,
    ms_clear,
    ms_free,
};

/* The one exported symbol: the core and this file are built with
 * -fvisibility=hidden, and 3.8's PyMODINIT_FUNC does not say "default". */
#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
PyMODINIT_FUNC PyInit__monostamp(void)
{
    return PyModuleDef_Init(&ms_module);
}
