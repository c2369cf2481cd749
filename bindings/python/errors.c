/*
 * errors.c: the one mapping from the core's error codes to exceptions.
 *
 * Every failed core call in the binding ends here, with a context saying
 * what was being done and with which values; the core adds why it failed.
 * The core carries an OS failure's errno inside the code
 * (MONOSTAMP_EOS(err)), so nothing here reads the global errno, which any
 * Python call in between could have changed.
 */
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

/* Raises OSError(err, message[, filename]): calling the class, rather than
 * setting it, picks the errno's subclass (FileNotFoundError, ...) as
 * PyErr_SetFromErrno does, and fills errno, strerror and filename.
 * `winerror` (Windows only, else 0) is a Windows error code instead:
 * OSError maps it to its errno itself (ERROR_PATH_NOT_FOUND is ENOENT, so
 * FileNotFoundError, where errno 3 would be ProcessLookupError) and keeps
 * it as .winerror, as the os module's own errors do. */
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
    /* A wait cut short by a signal handler's exception: that exception is
     * the one to raise (KeyboardInterrupt, say). */
    if (code == MONOSTAMP_EINTR && PyErr_Occurred())
        return NULL;
    /* The OS's number and the reason first, before any call could reuse
     * the core's per-thread buffer behind monostamp_strerror. */
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
        /* A file another user could write: a permission matter, so
         * PermissionError (EACCES), with the file named. */
        raise_os_error(EACCES, 0, message, filename);
    } else if (code == MONOSTAMP_EEXIST) {
        raise_os_error(EEXIST, 0, message, filename);
    } else {
        PyObject *type;
        switch (code) {
        case MONOSTAMP_EINVAL:
        case MONOSTAMP_ERANGE:
        case MONOSTAMP_ENOTSUP:
        case MONOSTAMP_EFOREIGN:
        case MONOSTAMP_EVERSION:
        case MONOSTAMP_ENOZONE:
        case MONOSTAMP_ESYNTAX:
        case MONOSTAMP_EPOLICY:
        case MONOSTAMP_ENOTV7:
            type = PyExc_ValueError;
            break;
        case MONOSTAMP_ELEAD:
            /* The clock's state is at fault, not the arguments: LeadError
             * is a RuntimeError, which stands in should a caller have no
             * state (a bug: the header says who may pass NULL). */
            type = st != NULL ? st->lead_error : PyExc_RuntimeError;
            break;
        case MONOSTAMP_ENOMEM:
            type = PyExc_MemoryError;
            break;
        default:
            /* A code newer than this binding: not the caller's fault. */
            type = PyExc_RuntimeError;
            break;
        }
        PyErr_SetObject(type, message);
    }
    Py_DECREF(message);
    return NULL;
}
