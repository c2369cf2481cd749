/*
 * clock_args.c: Clock()'s arguments, each converted (TypeError for a wrong
 * type) and then checked by the core's monostamp_options_check, which
 * names the one bad field; this file turns that name into a ValueError
 * naming the argument and its value.  Also the instants Clock(start_ns=)
 * and Clock.set() take.
 */
#include "module.h"

#include <string.h>

/* The zone name behind Clock(zone=...): a str as it is, a
 * zoneinfo.ZoneInfo by its key (the name it was opened with: the core
 * then reads the same file), datetime.timezone.utc as 'UTC'.  Other
 * tzinfos have no name the core could open: TypeError saying what to give. */
static const char *zone_name_arg(PyObject *obj, PyObject **keep)
{
    Py_ssize_t len;
    *keep = NULL;
    if (PyUnicode_Check(obj))
        return ms_utf8_arg(obj, "Clock(): zone", 1, &len);
    PyObject *datetime = PyImport_ImportModule("datetime"), *utc = NULL, *tzinfo = NULL;
    int is_tz = 0;
    if (datetime != NULL && (tzinfo = PyObject_GetAttrString(datetime, "tzinfo")) != NULL) {
        PyObject *timezone = PyObject_GetAttrString(datetime, "timezone");
        utc = timezone != NULL ? PyObject_GetAttrString(timezone, "utc") : NULL;
        Py_XDECREF(timezone);
        is_tz = utc != NULL ? PyObject_IsInstance(obj, tzinfo) : -1;
    }
    Py_XDECREF(datetime);
    Py_XDECREF(tzinfo);
    Py_XDECREF(utc);
    if (is_tz < 0)
        return NULL;
    if (obj == utc) /* compared only: timezone.utc is immortal in the module */
        return "UTC";
    PyObject *key = is_tz ? PyObject_GetAttrString(obj, "key") : NULL;
    if (key != NULL && PyUnicode_Check(key)) {
        *keep = key;
        return ms_utf8_arg(key, "Clock(): zone", 1, &len);
    }
    Py_XDECREF(key);
    PyErr_Clear();
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
    if (name != NULL)
        ms_raise(PyExc_TypeError,
                     "Clock(): zone must be a zone name (str), a zoneinfo.ZoneInfo or "
                     "datetime.timezone.utc, not %U%s",
                     name, is_tz ? " -- a fixed offset or other tzinfo has no name the "
                                   "clock could follow: give its IANA name ('Europe/Berlin') "
                                   "or a POSIX TZ string" : "");
    Py_XDECREF(name);
    return NULL;
}

/* An instant as int ns since the epoch: an int (ns), a Stamp (its
 * utc_ns) or an aware datetime (as Stamp.fromdatetime reads it), so that
 * a test never writes nanoseconds by hand.  `what` is "Clock.set(): ns". */
int ms_instant_ns_arg(ms_state *st, PyObject *obj, const char *what, int64_t *out)
{
    if (PyLong_Check(obj) && !PyBool_Check(obj))
        return ms_int64_arg(obj, what, out);
    if (PyObject_TypeCheck(obj, st->stamp_type)) {
        *out = ((ms_stamp_object *)obj)->utc_ns;
        return 0;
    }
    PyObject *datetime = PyImport_ImportModule("datetime"), *cls = NULL;
    int is_dt = -1;
    if (datetime != NULL && (cls = PyObject_GetAttrString(datetime, "datetime")) != NULL)
        is_dt = PyObject_IsInstance(obj, cls);
    Py_XDECREF(datetime);
    Py_XDECREF(cls);
    if (is_dt < 0)
        return -1;
    if (!is_dt) {
        PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
        if (name != NULL)
            ms_raise(PyExc_TypeError,
                         "%s must be int nanoseconds since the epoch, an aware datetime or a "
                         "Stamp, not %U%s", what, name,
                         PyFloat_Check(obj) ? " -- for seconds, give "
                                              "datetime.fromtimestamp(s, timezone.utc)" : "");
        Py_XDECREF(name);
        return -1;
    }
    PyObject *offset = PyObject_CallMethod(obj, "utcoffset", NULL);
    if (offset == NULL)
        return -1;
    int naive = offset == Py_None;
    Py_DECREF(offset);
    if (naive) {
        ms_raise(PyExc_ValueError,
                     "%s=%R is a naive datetime, which names no instant -- attach "
                     "its zone (dt.replace(tzinfo=timezone.utc))", what, obj);
        return -1;
    }
    PyObject *stamp = PyObject_CallMethod((PyObject *)st->stamp_type, "fromdatetime", "O", obj);
    if (stamp == NULL)
        return -1;
    *out = ((ms_stamp_object *)stamp)->utc_ns;
    Py_DECREF(stamp);
    return 0;
}

/* Reads the arguments and converts each, checking types and what Python
 * alone can check.  On failure ca->shared_bytes may still need a DECREF. */
int ms_clock_args_parse(ms_state *st, PyObject *args, PyObject *kwds, ms_clock_args *ca)
{
    static char *keywords[] = {"policy", "source", "zone", "max_lead_ns", "on_lead",
                               "shared", "start_ns", "trust_group", NULL};
    monostamp_options *o = &ca->options;

    memset(ca, 0, sizeof *ca);
    monostamp_options_init(o);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$OOOOOOO:Clock", keywords, &ca->policy,
                                     &ca->source, &ca->zone, &ca->max_lead_ns, &ca->on_lead,
                                     &ca->shared, &ca->start_ns, &ca->trust_group))
        return -1;
    /* None is "not given" for the three that default to nothing. */
    if (ca->zone == Py_None)
        ca->zone = NULL;
    if (ca->shared == Py_None)
        ca->shared = NULL;
    if (ca->start_ns == Py_None)
        ca->start_ns = NULL;

    if ((ca->policy != NULL && ms_policy_arg(st, ca->policy, "Clock(): policy", &o->policy) < 0) ||
        (ca->source != NULL && ms_source_arg(ca->source, "Clock(): source", &o->source) < 0) ||
        (ca->zone != NULL && (o->zone = zone_name_arg(ca->zone, &ca->zone_key)) == NULL) ||
        (ca->max_lead_ns != NULL &&
         ms_int64_arg(ca->max_lead_ns, "Clock(): max_lead_ns", &o->max_lead_ns) < 0) ||
        (ca->on_lead != NULL && ms_on_lead_arg(ca->on_lead, "Clock(): on_lead", &o->on_lead) < 0) ||
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

/* Asks the core whether the options make a clock; if not, raises the
 * ValueError naming the one argument it names, with its value and the
 * core's rule for it. */
int ms_clock_args_check(const ms_clock_args *ca)
{
    const char *field = NULL;
    if (monostamp_options_check(&ca->options, &field) == MONOSTAMP_OK)
        return 0;
    /* The Python argument behind each of the core's fields. */
    const struct { const char *field, *argument; PyObject *value; } args[] = {
        {"policy", "policy", ca->policy},       {"source", "source", ca->source},
        {"zone", "zone", ca->zone},             {"max_lead_ns", "max_lead_ns", ca->max_lead_ns},
        {"on_lead", "on_lead", ca->on_lead},    {"shared_path", "shared", ca->shared},
        {"start_ns", "start_ns", ca->start_ns},
    };
    const char *rule = monostamp_options_rule(field);
    for (size_t i = 0; field != NULL && i < sizeof args / sizeof args[0]; i++) {
        if (strcmp(args[i].field, field) == 0) {
            PyErr_Format(PyExc_ValueError, "Clock(): %s=%R %s", args[i].argument,
                         args[i].value != NULL ? args[i].value : Py_None,
                         rule != NULL ? rule : "is not accepted");
            return -1;
        }
    }
    PyErr_Format(PyExc_ValueError, "Clock(): the options are not accepted (%s)",
                 field != NULL ? field : "no field named");
    return -1;
}
