/* clock.c: monostamp.Clock, a core clock embedded in a Python object (it
 * never moves); what it was made with is asked of the core.  The module's
 * functions on the default clock are these methods with the module as self
 * (bound methods' messages would name "Clock.now()"); one Clock wraps the
 * core's default clock, none if that is unusable (each function raises). */
#include "module.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    monostamp_clock *core;    /* &clock, or the core's default clock */
    PyObject *shared;         /* the shared= argument (or state file), or None */
    PyTypeObject *stamp_type; /* held: now() needs no module state */
    int is_default;
    monostamp_clock clock;    /* unused by the default clock's object */
} ClockObject;

#define CLOCK(op) ((ClockObject *)(op))
#define STATE_OF(op) ms_state_of_type(Py_TYPE(op))

/* The Clock behind a method's self: self, or the default clock for the
 * module; NULL with the error if that is unusable. */
static inline PyObject *clock_self(PyObject *self)
{
    if (!PyModule_CheckExact(self))
        return self;
    ms_state *st = (ms_state *)PyModule_GetState(self);
    return st->default_clock != NULL ? st->default_clock : ms_default_clock_error(st);
}

#define CALL_NAME(op, name) (CLOCK(op)->is_default ? name : "Clock." name)

/* A stamp waiting for its lead bound lets the GIL go around each nap and
 * runs the signal handlers after it: Ctrl-C ends the wait (MONOSTAMP_EINTR).
 * C code of the embedding application may stamp the default clock without
 * the GIL: such a thread has nothing to let go of. */
static int holding_the_gil(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyThreadState_GetUnchecked() != NULL;
#else
    /* Before 3.13 the unchecked getter answers "the thread state that
     * holds the GIL", whichever thread that is: ours only if it is ours. */
    PyThreadState *current = _PyThreadState_UncheckedGet();
    return current != NULL && current == PyGILState_GetThisThreadState();
#endif
}

/* The token is the thread state let go of, or NULL if none was held. */
static void *let_the_gil_go(void *unused)
{
    return holding_the_gil() ? PyEval_SaveThread() : NULL;
}

static int take_the_gil_back(void *unused, void *token)
{
    if (token == NULL)
        return 0;
    PyEval_RestoreThread((PyThreadState *)token);
    /* Nonzero, with the handler's exception set, ends the wait. */
    return PyErr_CheckSignals() < 0;
}

static const monostamp_waiter waiter = {let_the_gil_go, take_the_gil_back, NULL};

/* Module objects using the core's one default clock (`joins` 1, leaves
 * -1): the first sets the waiter, the last clears it. */
static atomic_int default_clock_users;

static void default_clock_user(monostamp_clock *clock, int joins)
{
    if (atomic_fetch_add(&default_clock_users, joins) == (joins > 0 ? 0 : 1))
        (void)monostamp_clock_set_waiter(clock, joins > 0 ? &waiter : NULL);
}

/* ------------------------------------------------------ Clock()'s arguments */

/* As given (borrowed, NULL: not given) and as the core's options. */
typedef struct {
    PyObject *policy, *source, *zone, *max_lead_ns, *on_lead, *shared, *start_ns, *trust_group;
    PyObject *shared_bytes; /* owned: keeps options.shared_path alive */
    PyObject *zone_key;     /* owned: a ZoneInfo's key, keeps options.zone alive */
    monostamp_options options;
} clock_args;

/* On failure too, the caller releases shared_bytes and zone_key. */
static int clock_args_parse(ms_state *st, PyObject *args, PyObject *kwds, clock_args *ca)
{
    static char *keywords[] = {"policy", "source", "zone", "max_lead_ns", "on_lead",
                               "shared", "start_ns", "trust_group", NULL};
    monostamp_options *o = &ca->options;

    memset(ca, 0, sizeof *ca);
    monostamp_options_init(o);
    /* A keyword's slip gets the core's "did you mean", as Lua's keys do. */
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (kwds != NULL && PyDict_Next(kwds, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        size_t i = 0;
        if (name == NULL) {
            PyErr_Clear();  /* PyArg_ParseTupleAndKeywords says what is wrong */
            break;
        }
        while (keywords[i] != NULL && strcmp(keywords[i], name) != 0)
            i++;
        if (keywords[i] == NULL) {
            char why[256];
            monostamp_option_unknown(name, why, sizeof why);
            return ms_core_text(PyExc_TypeError, "Clock()", why), -1;
        }
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$OOOOOOO:Clock", keywords, &ca->policy,
                                     &ca->source, &ca->zone, &ca->max_lead_ns, &ca->on_lead,
                                     &ca->shared, &ca->start_ns, &ca->trust_group))
        return -1;
    /* None is "not given" for the three that default to nothing. */
    PyObject **none_ok[] = {&ca->zone, &ca->shared, &ca->start_ns};
    for (size_t i = 0; i < 3; i++)
        *none_ok[i] = *none_ok[i] == Py_None ? NULL : *none_ok[i];

    if ((ca->policy != NULL && ms_policy_arg(st, ca->policy, "Clock(): policy", &o->policy) < 0) ||
        (ca->source != NULL &&
         ms_option_arg(ca->source, "Clock(): source", "source", "str", &o->source) < 0) ||
        (ca->zone != NULL && (o->zone = ms_zone_name_arg(ca->zone, &ca->zone_key)) == NULL) ||
        (ca->max_lead_ns != NULL &&
         ms_int64_arg(ca->max_lead_ns, "Clock(): max_lead_ns", &o->max_lead_ns) < 0) ||
        (ca->on_lead != NULL &&
         ms_option_arg(ca->on_lead, "Clock(): on_lead", "on_lead", "str", &o->on_lead) < 0) ||
        (ca->start_ns != NULL &&
         ms_instant_ns_arg(st, ca->start_ns, "Clock(): start_ns", &o->start_ns) < 0) ||
        (ca->trust_group != NULL &&
         ms_bool_arg(ca->trust_group, "Clock(): trust_group", &o->trust_group) < 0))
        return -1;
    o->has_start_ns = ca->start_ns != NULL;
    if (ca->shared != NULL) {
        if (ms_path_arg(ca->shared, "Clock(): shared", &ca->shared_bytes) < 0)
            return -1;
        if ((o->shared_path = PyBytes_AsString(ca->shared_bytes)) == NULL)
            return -1;
    }
    return 0;
}

/* The core's check; its bad field becomes the argument, value and rule. */
static int clock_args_check(const clock_args *ca)
{
    const char *field = NULL;
    if (monostamp_options_check(&ca->options, &field) == MONOSTAMP_OK)
        return 0;
    const struct { const char *field; PyObject *value; } args[] = {
        {"policy", ca->policy}, {"source", ca->source}, {"zone", ca->zone},
        {"max_lead_ns", ca->max_lead_ns}, {"on_lead", ca->on_lead},
        {"shared_path", ca->shared}, {"start_ns", ca->start_ns},
    };
    for (size_t i = 0; field != NULL && i < sizeof args / sizeof args[0]; i++) {
        if (strcmp(args[i].field, field) == 0)  /* the core's sentence */
            return ms_options_fault("Clock()", field, args[i].value != NULL ? args[i].value
                                                                            : Py_None);
    }
    PyErr_Format(PyExc_ValueError, "Clock(): the options are not accepted (%s)",
                 field != NULL ? field : "no field named");
    return -1;
}

/* The options were checked: the zone or the shared file failed. */
static void clock_init_error(ms_state *st, int rc, const clock_args *ca)
{
    if (rc == MONOSTAMP_ENOZONE)
        ms_zone_error("Clock()", ca->options.zone);
    else if (ca->shared != NULL && monostamp_state_file_fault(rc))
        ms_state_file_error(st, "Clock()", "shared", rc, ca->shared, ca->options.shared_path);
    else
        raise_core(st, rc, NULL, "Clock()");
}

PyDoc_STRVAR(clock_doc,
"Clock(policy='monotonicForceNanosecondIncrement', *, source='realtime', zone=None, max_lead_ns=1000000000, on_lead='wait', shared=None, start_ns=None, trust_group=False)\n"
"--\n\n"
"A clock of its own: unique, monotonic stamps under `policy` from `source`\n"
"('realtime', 'realtime_coarse', 'manual'), offsets from `zone` (None:\n"
"local; 'UTC', an IANA or POSIX TZ name, a ZoneInfo or timezone.utc).\n"
"Stamps lead the source by at most max_lead_ns (0: no bound), then\n"
"on_lead 'wait's or raises LeadError ('error').  shared: a state file\n"
"joining every process on it into one sequence (yours alone, or with\n"
"trust_group=True one of your groups').  start_ns: the manual source's\n"
"first reading.  Thread-safe; see \"monostamp for Python\" in the\n"
"monostamp docs.");

static PyObject *clock_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    ms_state *st = ms_state_of_type(type);
    ClockObject *self = NULL;
    clock_args ca;
    int rc;

    if (st == NULL)
        return NULL;
    if (clock_args_parse(st, args, kwds, &ca) < 0 || clock_args_check(&ca) < 0)
        goto done;
    self = (ClockObject *)PyType_GenericAlloc(type, 0);
    if (self == NULL)
        goto done;
    rc = monostamp_clock_init(&self->clock, &ca.options);
    if (rc != MONOSTAMP_OK) {
        /* Zeroed, the destroy in dealloc is a no-op. */
        memset(&self->clock, 0, sizeof self->clock);
        clock_init_error(st, rc, &ca);
        Py_CLEAR(self);
        goto done;
    }
    self->core = &self->clock;
    self->shared = Py_NewRef(ca.shared != NULL ? ca.shared : Py_None);
    self->stamp_type = (PyTypeObject *)Py_NewRef(st->stamp_type);
    (void)monostamp_clock_set_waiter(&self->clock, &waiter);
done:
    Py_XDECREF(ca.shared_bytes);
    Py_XDECREF(ca.zone_key);
    return (PyObject *)self;
}

static int clock_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(op)); /* instances of heap types own their type */
    Py_VISIT(CLOCK(op)->shared);
    Py_VISIT(CLOCK(op)->stamp_type);
    return 0;
}

static int clock_clear(PyObject *op)
{
    /* The core clock lives until dealloc: it works during collection. */
    Py_CLEAR(CLOCK(op)->shared);
    Py_CLEAR(CLOCK(op)->stamp_type);
    return 0;
}

static void clock_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    if (CLOCK(op)->is_default)
        default_clock_user(CLOCK(op)->core, -1);
    else
        monostamp_clock_destroy(&CLOCK(op)->clock);
    clock_clear(op);
    PyObject_GC_Del(op);
    Py_DECREF(type);
}

/* Raises for a failed stamp from this clock: the core's sentence. */
static PyObject *clock_error(PyObject *op, int rc, const char *call)
{
    char why[256];
    monostamp_clock_fault(CLOCK(op)->core, call, rc, 0, why, sizeof why);
    return ms_core_fault(STATE_OF(op), rc, call, why);
}

/* The module's functions on the default clock share these docs. */
PyDoc_STRVAR(clock_now_doc, "now($self, /)\n--\n\n"
"The clock's next Stamp (LeadError: see on_lead); monostamp.now(): the\n"
"default clock's, one sequence with fork()ed children and MONOSTAMP_SHARED.");

static PyObject *clock_now(PyObject *op, PyObject *unused)
{
    monostamp_stamp stamp;
    int rc = monostamp_now(CLOCK(op)->core, &stamp);
    if (rc != MONOSTAMP_OK)
        return clock_error(op, rc, CALL_NAME(op, "now()"));
    return ms_stamp_new(CLOCK(op)->stamp_type, stamp.utc_ns, stamp.offset_s);
}

PyDoc_STRVAR(clock_time_ns_doc, "time_ns($self, /)\n--\n\n"
"The clock's next stamp as int ns, like time.time_ns() but unique (one\n"
"sequence with now()).");

static PyObject *clock_time_ns(PyObject *op, PyObject *unused)
{
    int64_t ns;
    int rc = monostamp_time_ns(CLOCK(op)->core, &ns);
    if (rc != MONOSTAMP_OK)
        return clock_error(op, rc, CALL_NAME(op, "time_ns()"));
    return PyLong_FromLongLong(ns);
}

int ms_clock_core(PyObject *obj, monostamp_clock **out)
{
    /* Clock cannot be subclassed: its tp_new tells it apart. */
    if (Py_TYPE(obj)->tp_new != clock_new)
        return 0;
    *out = CLOCK(obj)->core;
    return 1;
}

PyDoc_STRVAR(clock_time_doc, "time($self, /)\n--\n\n"
"The clock's next stamp as float seconds, like time.time(): drawn at\n"
"whole-µs grain, unique (one sequence with now() and time_ns()).");

static PyObject *clock_time(PyObject *self, PyObject *unused)
{
    PyObject *op = clock_self(self);
    int64_t ns;
    if (op == NULL)
        return NULL;
    int rc = monostamp_time_us(CLOCK(op)->core, &ns);
    if (rc != MONOSTAMP_OK)
        return clock_error(op, rc, CALL_NAME(op, "time()"));
    /* Whole µs apart near today are distinct doubles. */
    return PyFloat_FromDouble((double)ns / 1e9);
}

PyDoc_STRVAR(clock_now_datetime_doc, "now_datetime($self, /, tz=None)\n--\n\n"
"The clock's next stamp as an aware datetime at its offset (the default\n"
"clock's: local), or converted to tz; whole-µs grain, unique.");

static PyObject *clock_now_datetime(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    static const char *const names[] = {"tz", NULL};
    PyObject *op = clock_self(self);
    monostamp_stamp stamp;
    PyObject *tz;
    if (op == NULL || ms_parse_args("now_datetime", args, nargs, kwnames, names, 1, 0, &tz) < 0)
        return NULL;
    int rc = monostamp_now_us(CLOCK(op)->core, &stamp);
    if (rc != MONOSTAMP_OK)
        return clock_error(op, rc, CALL_NAME(op, "now_datetime()"));
    PyObject *dt = ms_datetime_from_stamp(STATE_OF(op), stamp.utc_ns, stamp.offset_s);
    if (dt == NULL || tz == NULL || tz == Py_None)
        return dt;
    PyObject *converted = PyObject_CallMethod(dt, "astimezone", "O", tz);
    Py_DECREF(dt);
    return converted;
}

PyDoc_STRVAR(clock_uuid7_doc, "uuid7($self, /)\n--\n\n"
"A version 7 uuid.UUID of the clock's next stamp: increasing wherever the\n"
"stamps are; uuid7_ns() gives the stamp back (see \"Time-ordered ids\" in\n"
"the monostamp docs).");

static PyObject *clock_uuid7(PyObject *self, PyObject *unused)
{
    PyObject *op = clock_self(self);
    if (op == NULL)
        return NULL;
    return ms_draw_uuid7(STATE_OF(op), CLOCK(op)->core, CALL_NAME(op, "uuid7()"));
}

PyDoc_STRVAR(clock_take_doc, "take($self, n, /)\n--\n\n"
"Reserves n consecutive stamps of the clock in one atomic step, as\n"
"range(first, stop, step) (step 1 ns, or 1000 under the µs policy): no\n"
"other stamp falls among them.  ValueError under a policy allowing equal\n"
"stamps; LeadError for a block longer than max_lead_ns.");

static PyObject *clock_take(PyObject *self, PyObject *arg)
{
    PyObject *op = clock_self(self);
    if (op == NULL)
        return NULL;
    return ms_draw_take(STATE_OF(op), CLOCK(op)->core, arg, CALL_NAME(op, "take()"));
}

/* set(), advance(), step_back(): never ELEAD, so no module state. */
static PyObject *clock_manual(PyObject *self, PyObject *arg, const char *name,
                              int (*op)(monostamp_clock *, int64_t))
{
    char what[40];
    int64_t ns;
    monostamp_clock *core = CLOCK(self)->core;
    snprintf(what, sizeof what, "Clock.%s(): ns", name);
    if (op == monostamp_manual_set) {
        if (ms_instant_ns_arg(STATE_OF(self), arg, what, &ns) < 0)
            return NULL;
    } else if (PyFloat_Check(arg)) {
        /* A step is a count of ns; 1.5 most likely meant seconds. */
        ms_raise(PyExc_TypeError,
                     "%s must be an int of nanoseconds, not float (%R) -- give whole "
                     "nanoseconds: 1 s is 1_000_000_000", what, arg);
        return NULL;
    } else if (ms_int64_arg(arg, what, &ns) < 0) {
        return NULL;
    }
    int rc = op(core, ns);
    if (rc == MONOSTAMP_OK)
        Py_RETURN_NONE;
    /* The core's sentence for a refused move, after "Clock.set(): ". */
    char why[256], call[40];
    snprintf(call, sizeof call, "Clock.%s()", name);
    monostamp_clock_fault(core, name, rc, ns, why, sizeof why);
    return ms_core_fault(NULL, rc, call, why);
}

static int manual_step_back(monostamp_clock *clock, int64_t ns)
{
    return ns < 0 ? MONOSTAMP_EINVAL : monostamp_manual_advance(clock, -ns);
}

#define MANUAL(fn, name, op) \
    static PyObject *fn(PyObject *self, PyObject *arg) { return clock_manual(self, arg, name, op); }

PyDoc_STRVAR(clock_set_doc, "set($self, ns, /)\n--\n\n"
"Manual clocks: sets the source's reading to ns (int ns since the epoch,\n"
"not seconds; an aware datetime or a Stamp).  Stamps still follow the\n"
"policy: only acceptPlatformTime goes back with it.");

MANUAL(clock_set, "set", monostamp_manual_set)

PyDoc_STRVAR(clock_advance_doc, "advance($self, ns, /)\n--\n\n"
"Manual clocks: moves the source's reading by ns (negative steps back).");

MANUAL(clock_advance, "advance", monostamp_manual_advance)

PyDoc_STRVAR(clock_step_back_doc, "step_back($self, ns, /)\n--\n\n"
"Manual clocks: moves the source's reading back by ns >= 0 (advance(-ns)).");

MANUAL(clock_step_back, "step_back", manual_step_back)

PyDoc_STRVAR(clock_stats_doc, "stats($self, /)\n--\n\n"
"The core's counters since the clock began, as a dict.");

static PyObject *clock_stats(PyObject *op, PyObject *unused)
{
    typedef unsigned long long ull;
    monostamp_stats s;
    monostamp_clock_stats(CLOCK(op)->core, &s);
    return Py_BuildValue("{s:K,s:K,s:L,s:K,s:K,s:L,s:L,s:K,s:K}", "readings", (ull)s.readings,
                         "backward_steps", (ull)s.backward_steps, "largest_backward_ns",
                         (long long)s.largest_backward_ns, "duplicates", (ull)s.duplicates,
                         "forced_increments", (ull)s.forced_increments, "lead_ns",
                         (long long)s.lead_ns, "max_lead_ns", (long long)s.max_lead_ns,
                         "lead_waits", (ull)s.lead_waits, "lead_errors", (ull)s.lead_errors);
}

PyDoc_STRVAR(clock_publish_doc, "_publish($self, path=None, /)\n--\n\n"
"Adds what the clock counted and has not published yet to the counts of\n"
"the state file at path (None: the file it shares): True; False if it\n"
"shares none and no path was given (the pytest plugin's summary).");

static PyObject *clock_publish(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    return ms_publish(STATE_OF(op), CLOCK(op)->core, args, nargs, "Clock._publish");
}

/* As Clock(...) would make it again; the default clock says it is one. */
static PyObject *clock_repr(PyObject *op)
{
    const monostamp_clock *clock = CLOCK(op)->core;
    const char *zone = monostamp_zone_name(monostamp_clock_zone(clock));
    int named = zone != NULL && zone[0] != '\0';
    return PyUnicode_FromFormat("%s(policy='%s', source='%s', zone=%s%s%s, "
                                "max_lead_ns=%lld, on_lead='%s', shared=%R)%s",
                                CLOCK(op)->is_default ? "<monostamp default clock "
                                                      : "monostamp.Clock",
                                monostamp_policy_name(monostamp_clock_policy(clock)),
                                monostamp_source_name(monostamp_clock_source(clock)),
                                named ? "'" : "", named ? zone : "None", named ? "'" : "",
                                (long long)monostamp_clock_max_lead_ns(clock),
                                monostamp_on_lead_name(monostamp_clock_on_lead(clock)),
                                CLOCK(op)->shared != NULL ? CLOCK(op)->shared : Py_None,
                                CLOCK(op)->is_default ? ">" : "");
}

/* Getters have no defining class, but Clock's type is the module's own. */
static PyObject *clock_get_policy(PyObject *op, void *closure)
{
    return ms_policy_object(STATE_OF(op), monostamp_clock_policy(CLOCK(op)->core));
}

static int clock_set_policy(PyObject *op, PyObject *value, void *closure)
{
    ms_state *st = STATE_OF(op);
    int policy;
    if (value == NULL)
        return PyErr_Format(PyExc_AttributeError, "cannot delete a clock's policy"), -1;
    if (ms_policy_arg(st, value, CLOCK(op)->is_default ? "set_policy(): policy" : "Clock.policy",
                      &policy) < 0)
        return -1;
    int rc = monostamp_clock_set_policy(CLOCK(op)->core, policy);
    if (rc != MONOSTAMP_OK) {
        raise_core(st, rc, NULL, CLOCK(op)->is_default ? "set_policy(%R)" : "policy=%R", value);
        return -1;
    }
    return 0;
}

/* The read-only attributes, the closure saying which. */
enum { GET_SOURCE, GET_ZONE, GET_SHARED, GET_MAX_LEAD_NS, GET_ON_LEAD };

static PyObject *clock_get(PyObject *op, void *closure)
{
    const monostamp_clock *clock = CLOCK(op)->core;
    const char *zone = monostamp_zone_name(monostamp_clock_zone(clock));
    switch ((int)(intptr_t)closure) {
    case GET_SOURCE:
        return PyUnicode_FromString(monostamp_source_name(monostamp_clock_source(clock)));
    case GET_ZONE:
        return zone != NULL && zone[0] != '\0' ? PyUnicode_FromString(zone) : Py_NewRef(Py_None);
    case GET_MAX_LEAD_NS:
        return PyLong_FromLongLong(monostamp_clock_max_lead_ns(clock));
    case GET_ON_LEAD:
        return PyUnicode_FromString(monostamp_on_lead_name(monostamp_clock_on_lead(clock)));
    default: /* shared: NULL only after tp_clear */
        return Py_NewRef(CLOCK(op)->shared != NULL ? CLOCK(op)->shared : Py_None);
    }
}

#define GETTER(name, which, doc) {name, clock_get, NULL, doc, (void *)(intptr_t)(which)}

static PyGetSetDef clock_getset[] = {
    {"policy", clock_get_policy, clock_set_policy,
     "The clock's Policy; assign a Policy or its name to change it.", NULL},
    GETTER("source", GET_SOURCE, "The source's name."),
    GETTER("zone", GET_ZONE, "The zone's name, or None for the local zone."),
    GETTER("shared", GET_SHARED, "The shared state file given, or None."),
    GETTER("max_lead_ns", GET_MAX_LEAD_NS, "The lead bound in ns (0: none)."),
    GETTER("on_lead", GET_ON_LEAD, "'wait' or 'error'."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef clock_methods[] = {
    {"now", clock_now, METH_NOARGS, clock_now_doc},
    {"time_ns", clock_time_ns, METH_NOARGS, clock_time_ns_doc},
    {"time", clock_time, METH_NOARGS, clock_time_doc},
    {"now_datetime", FASTCALL_KW(clock_now_datetime), clock_now_datetime_doc},
    {"set", clock_set, METH_O, clock_set_doc},
    {"advance", clock_advance, METH_O, clock_advance_doc},
    {"step_back", clock_step_back, METH_O, clock_step_back_doc},
    {"stats", clock_stats, METH_NOARGS, clock_stats_doc},
    {"_publish", (PyCFunction)(void (*)(void))clock_publish, METH_FASTCALL, clock_publish_doc},
    {"uuid7", clock_uuid7, METH_NOARGS, clock_uuid7_doc},
    {"take", clock_take, METH_O, clock_take_doc},
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

PyType_Spec ms_clock_spec = {
    .name = "monostamp.Clock",
    .basicsize = sizeof(ClockObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = clock_slots,
};

/* The state file MONOSTAMP_SHARED names, as the core read it, or None. */
static PyObject *shared_env(void)
{
    const char *shared = getenv("MONOSTAMP_SHARED");
    return shared != NULL && shared[0] != '\0' ? PyUnicode_DecodeFSDefault(shared)
                                               : Py_NewRef(Py_None);
}

int ms_clock_default_new(ms_state *st, PyObject **out)
{
    monostamp_clock *core;
    *out = NULL;
    if (monostamp_default_clock(&core) != MONOSTAMP_OK)
        return 0;
    ClockObject *self = (ClockObject *)PyType_GenericAlloc(st->clock_type, 0);
    if (self == NULL)
        return -1;
    if ((self->shared = shared_env()) == NULL) {
        Py_DECREF(self); /* not default yet: dealloc touches no clock */
        return -1;
    }
    self->core = core;
    self->is_default = 1;
    self->stamp_type = (PyTypeObject *)Py_NewRef(st->stamp_type);
    default_clock_user(core, 1);
    *out = (PyObject *)self;
    return 0;
}

/* ------------------------------------------------------ the default clock */

PyObject *ms_default_clock_error(ms_state *st)
{
    monostamp_clock *clock;
    /* The core promises its error on every call once it has one. */
    int rc = monostamp_default_clock(&clock);
    PyObject *path = shared_env();
    /* The variable as the core reads it, for the core's sentence. */
    const char *env = getenv("MONOSTAMP_SHARED");
    if (path != NULL && path != Py_None && env != NULL && monostamp_state_file_fault(rc))
        ms_state_file_error(st, "the default clock is unusable", "MONOSTAMP_SHARED", rc, path,
                            env);
    else if (path != NULL)
        raise_core(st, rc, NULL, "the default clock is unusable");
    Py_XDECREF(path);
    return NULL;
}

PyDoc_STRVAR(share_default_doc, "_share_default(path, /)\n--\n\n"
"Moves the default clock onto the state file at path, as MONOSTAMP_SHARED\n"
"at import would (the pytest plugin's); no other thread may stamp meanwhile.");

static PyObject *share_default(PyObject *module, PyObject *arg)
{
    ms_state *st = (ms_state *)PyModule_GetState(module);
    PyObject *bytes;
    if (st->default_clock == NULL)
        return ms_default_clock_error(st);
    if (ms_path_arg(arg, "_share_default(): path", &bytes) < 0)
        return NULL;
    int rc = monostamp_default_share(PyBytes_AsString(bytes));
    Py_DECREF(bytes);
    if (rc != MONOSTAMP_OK)
        return raise_core(st, rc, arg, "_share_default(%R)", arg);
    Py_XSETREF(CLOCK(st->default_clock)->shared, Py_NewRef(arg));
    Py_RETURN_NONE;
}

/* now() and time_ns(), the hottest, are tail calls: Clock.now() itself
 * never asks whether its self is the module; get_policy() is the property. */
#define ON_DEFAULT(name, call)                                      \
    static PyObject *name(PyObject *module, PyObject *unused)       \
    {                                                               \
        PyObject *op = clock_self(module);                          \
        return op != NULL ? call : NULL;                            \
    }
ON_DEFAULT(default_now, clock_now(op, unused))
ON_DEFAULT(default_time_ns, clock_time_ns(op, unused))
ON_DEFAULT(default_get_policy, clock_get_policy(op, NULL))

static PyObject *default_set_policy(PyObject *module, PyObject *policy)
{
    ms_state *st = (ms_state *)PyModule_GetState(module);
    int unused;
    /* A bad policy is named first, as the Clock's setter would. */
    if (st->default_clock == NULL &&
        ms_policy_arg(st, policy, "set_policy(): policy", &unused) == 0)
        return ms_default_clock_error(st);
    if (st->default_clock == NULL || clock_set_policy(st->default_clock, policy, NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(get_policy_doc, "get_policy()\n--\n\n"
"The default clock's Policy (Squeak's `Time clockPolicy`).");

PyDoc_STRVAR(set_policy_doc, "set_policy(policy, /)\n--\n\n"
"Sets the default clock's Policy (a Policy or its name) for this process\n"
"and the children it forks later: other processes sharing it keep theirs.");

PyMethodDef ms_default_functions[] = {
    {"now", default_now, METH_NOARGS, clock_now_doc},
    {"time_ns", default_time_ns, METH_NOARGS, clock_time_ns_doc},
    {"time", clock_time, METH_NOARGS, clock_time_doc},
    {"now_datetime", FASTCALL_KW(clock_now_datetime), clock_now_datetime_doc},
    {"uuid7", clock_uuid7, METH_NOARGS, clock_uuid7_doc},
    {"take", clock_take, METH_O, clock_take_doc},
    {"get_policy", default_get_policy, METH_NOARGS, get_policy_doc},
    {"set_policy", default_set_policy, METH_O, set_policy_doc},
    {"_share_default", share_default, METH_O, share_default_doc},
    {NULL, NULL, 0, NULL},
};
