/*
 * compat.h: the few C-API differences between CPython 3.8 and today that
 * _monostamp.c meets, in one place.  Every branch is chosen at compile time
 * from the API level the module is built against: PY_VERSION_HEX for a
 * version-specific build, Py_LIMITED_API for the abi3 one (whose headers
 * may be newer than the oldest interpreter it must load in).
 */
#ifndef MONOSTAMP_PY_COMPAT_H
#define MONOSTAMP_PY_COMPAT_H

#include <Python.h>

#ifdef Py_LIMITED_API
#  define MS_API_AT_LEAST(full, limited) (Py_LIMITED_API + 0 >= (limited))
#else
#  define MS_API_AT_LEAST(full, limited) (PY_VERSION_HEX >= (full))
#endif

/* PyType_FromModuleAndSpec and PyType_GetModule: 3.9, stable ABI 3.10.
 * Without them the module is found through an attribute of the type. */
#if MS_API_AT_LEAST(0x03090000, 0x030A0000)
#  define MS_HAVE_TYPE_MODULE 1
#else
#  define MS_HAVE_TYPE_MODULE 0
#endif

/* PyUnicode_AsUTF8AndSize: always in the full API, stable ABI 3.10. */
#if MS_API_AT_LEAST(0x03030000, 0x030A0000)
#  define MS_HAVE_AS_UTF8_AND_SIZE 1
#else
#  define MS_HAVE_AS_UTF8_AND_SIZE 0
#endif

/* structmember.h's names became Py_T_* / Py_READONLY in 3.12. */
#if PY_VERSION_HEX >= 0x030C0000 && defined(Py_T_LONGLONG)
#  define MS_T_LONGLONG Py_T_LONGLONG
#  define MS_T_INT Py_T_INT
#  define MS_READONLY Py_READONLY
#else
#  include <structmember.h>
#  define MS_T_LONGLONG T_LONGLONG
#  define MS_T_INT T_INT
#  define MS_READONLY READONLY
#endif

/* Types that cannot be changed from Python (3.10); the fallback of
 * MS_HAVE_TYPE_MODULE needs to set one attribute, so it keeps them mutable
 * as every heap type was before 3.10. */
#if defined(Py_TPFLAGS_IMMUTABLETYPE) && MS_HAVE_TYPE_MODULE
#  define MS_TPFLAGS_IMMUTABLE Py_TPFLAGS_IMMUTABLETYPE
#else
#  define MS_TPFLAGS_IMMUTABLE 0
#endif

#endif
