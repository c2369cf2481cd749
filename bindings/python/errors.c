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

PyObject *raise_core(ms_state *st, int code, PyObject *filename, const char *fmt, ...)
{
    /* A wait cut short by a signal handler's exception: raise that one. */
    if (code == MONOSTAMP_EINTR && PyErr_Occurred())
        return NULL;
    /* First, before a call could reuse monostamp_strerror's buffer. */
    int err = monostamp_os_errno(code);
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
    Py_DECREF(message);
    return NULL;
}

/* ------------------------------------------------ messages of one shape */

/* `text` with MS_DASH_ASCII made an em dash (a new reference), or NULL. */
static PyObject *dashed(PyObject *text)
{
    PyObject *ascii = PyUnicode_FromString(MS_DASH_ASCII);
    PyObject *dash = PyUnicode_FromString(" \xe2\x80\x94 ");
    PyObject *result = ascii != NULL && dash != NULL ? PyUnicode_Replace(text, ascii, dash, 1)
                                                     : NULL;
    Py_XDECREF(ascii);
    Py_XDECREF(dash);
    return result;
}

PyObject *ms_raise(PyObject *type, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyObject *text = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (text == NULL)
        return NULL;
    PyObject *message = dashed(text);
    Py_DECREF(text);
    if (message != NULL) {
        PyErr_SetObject(type, message);
        Py_DECREF(message);
    }
    return NULL;
}

PyObject *ms_zone_error(const char *call, PyObject *zone, const char *name)
{
    char near[MONOSTAMP_ZONE_NAME_MAX + 1];
    int has_near = name != NULL && monostamp_zone_suggest(name, near, sizeof near) == MONOSTAMP_OK;
    return ms_raise(PyExc_ValueError,
                    has_near ? "%s: zone=%R is not a zone this machine knows -- did you mean '%s'?"
                             : "%s: zone=%R is not a zone this machine knows -- give 'UTC', an "
                               "IANA name such as 'Europe/Berlin' (from TZDIR, else the "
                               "system's database) or a POSIX TZ string such as "
                               "'CET-1CEST,M3.5.0,M10.5.0/3'",
                    call, zone, near);
}

int ms_state_file_hint(const char *what, int code, PyObject *path, const char *path_bytes)
{
    const char *hint = monostamp_state_file_hint(code, path_bytes);
    if (hint == NULL)
        return 0;
    PyObject *text = PyUnicode_FromFormat("%s=%R: %s", what, path, hint);
    PyObject *message = text != NULL ? dashed(text) : NULL;
    /* OSError(ENOENT, message) is FileNotFoundError, without a filename:
     * the path is in the message once. */
    if (message != NULL)
        raise_os_error(ENOENT, 0, message, NULL);
    Py_XDECREF(message);
    Py_XDECREF(text);
    return 1;
}
