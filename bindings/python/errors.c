/* errors.c: the one mapping from the core's error codes to exceptions.
 * The core carries an OS failure's errno inside the code, so nothing here
 * reads the global errno, which any Python call could have changed. */
#include "module.h"

#include <errno.h>
#include <stdarg.h>

int ms_type_error(const char *what, const char *expected, PyObject *obj)
{
    /* The type's name through the attribute: PyType_GetName is 3.11+. */
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
    if (name == NULL)
        return -1;
    PyErr_Format(PyExc_TypeError, "%s must be %s, not %U", what, expected, name);
    Py_DECREF(name);
    return -1;
}

/* Calling OSError picks the errno's subclass (FileNotFoundError ...).  A
 * `winerror` (Windows) OSError maps to its errno itself, as os's do. */
static void raise_os_error(int err, int winerror, PyObject *message, PyObject *filename)
{
    PyObject *exc;
    if (winerror != 0)
        exc = PyObject_CallFunction(PyExc_OSError, "iOOi", 0, message,
                                    filename != NULL ? filename : Py_None, winerror);
    else if (filename != NULL)
        exc = PyObject_CallFunction(PyExc_OSError, "iOO", err, message, filename);
    else
        exc = PyObject_CallFunction(PyExc_OSError, "iO", err, message);
    if (exc == NULL)
        return;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
}

/* Raises `message` as the exception `code` calls for: the mapping. */
static PyObject *raise_message(ms_state *st, int code, PyObject *filename, PyObject *message)
{
    int err = monostamp_os_errno(code);
    if (err != 0) {
#ifdef _WIN32
        /* The core's OS failures carry GetLastError() codes on Windows. */
        raise_os_error(0, err, message, filename);
#else
        raise_os_error(err, 0, message, filename);
#endif
    } else if (code == MONOSTAMP_EUNSAFE) {
        raise_os_error(EACCES, 0, message, filename);
    } else if (code == MONOSTAMP_EEXIST) {
        raise_os_error(EEXIST, 0, message, filename);
    } else {
        /* The arguments' fault, ValueError, but for the clock's (LeadError,
         * a RuntimeError, which stands in without state), the machine's
         * (memory, a signal) and a code the core does not name. */
        PyObject *type = PyExc_ValueError;
        if (code == MONOSTAMP_ELEAD && st != NULL)
            type = st->lead_error;
        else if (code == MONOSTAMP_ENOMEM)
            type = PyExc_MemoryError;
        else if (code == MONOSTAMP_ELEAD || code == MONOSTAMP_EINTR ||
                 monostamp_error_name(code) == NULL)
            type = PyExc_RuntimeError;
        PyErr_SetObject(type, message);
    }
    return NULL;
}

PyObject *raise_core(ms_state *st, int code, PyObject *filename, const char *fmt, ...)
{
    /* A wait cut short by a signal handler's exception: raise that one. */
    if (code == MONOSTAMP_EINTR && PyErr_Occurred())
        return NULL;
    /* First, before a call could reuse monostamp_strerror's buffer. */
    PyObject *reason = PyUnicode_DecodeLocale(monostamp_strerror(code), "surrogateescape");
    PyObject *context, *message;
    va_list va;

    if (reason == NULL)
        return NULL;
    va_start(va, fmt);
    context = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (context == NULL) {
        Py_DECREF(reason);
        return NULL;
    }
    message = PyUnicode_FromFormat("%U: %U", context, reason);
    Py_DECREF(context);
    Py_DECREF(reason);
    if (message == NULL)
        return NULL;
    raise_message(st, code, filename, message);
    Py_DECREF(message);
    return NULL;
}

/* ------------------------------------------------ messages of one shape */

PyObject *ms_raise(PyObject *type, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyObject *message = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (message != NULL) {
        PyErr_SetObject(type, message);
        Py_DECREF(message);
    }
    return NULL;
}

/* The core's text holds what the caller gave (a zone's name, a path) as
 * bytes: decoded as the file system's names are. */
static PyObject *core_message(const char *prefix, const char *text)
{
    PyObject *why = PyUnicode_DecodeFSDefault(text);
    PyObject *message = why != NULL ? PyUnicode_FromFormat("%s: %U", prefix, why) : NULL;
    Py_XDECREF(why);
    return message;
}

PyObject *ms_core_text(PyObject *type, const char *prefix, const char *text)
{
    PyObject *message = core_message(prefix, text);
    if (message != NULL) {
        PyErr_SetObject(type, message);
        Py_DECREF(message);
    }
    return NULL;
}

PyObject *ms_core_fault(ms_state *st, int code, const char *prefix, const char *text)
{
    if (text[0] == '\0')  /* no sentence for it: the code's (EINTR's handler's exception) */
        return raise_core(st, code, NULL, "%s", prefix);
    PyObject *message = core_message(prefix, text);
    if (message != NULL) {
        raise_message(st, code, NULL, message);
        Py_DECREF(message);
    }
    return NULL;
}

int ms_rule_error(const char *what, int rule, PyObject *value)
{
    PyObject *shown = PyObject_Repr(value);  /* an int's or a float's: ASCII */
    const char *text = shown != NULL ? PyUnicode_AsUTF8(shown) : NULL;
    char why[512];
    if (text != NULL && monostamp_rule_text(rule, what, text, why, sizeof why) >= 0)
        PyErr_SetString(PyExc_ValueError, why);
    Py_XDECREF(shown);
    return -1;
}

PyObject *ms_zone_error(const char *call, const char *name)
{
    char why[2 * MONOSTAMP_ZONE_NAME_MAX + 256];
    monostamp_zone_unknown(name != NULL ? name : "", why, sizeof why);
    return ms_core_text(PyExc_ValueError, call, why);
}

PyObject *ms_state_file_error(ms_state *st, const char *call, const char *what, int code,
                              PyObject *path, const char *path_bytes)
{
    /* The core's own sentence ("shared='/x/s': Permission denied"); the
     * text of an OS failure first, before a call could reuse its buffer. */
    char why[4096 + 256];
    monostamp_state_file_text(code, what, path_bytes, why, sizeof why);
    PyObject *message = core_message(call, why);
    if (message == NULL)
        return NULL;
    /* The hint's FileNotFoundError carries no filename: the path is in the
     * message once. */
    if (monostamp_state_file_hint(code, path_bytes) != NULL)
        raise_os_error(ENOENT, 0, message, NULL);
    else
        raise_message(st, code, path, message);
    Py_DECREF(message);
    return NULL;
}
