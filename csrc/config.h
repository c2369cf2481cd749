/*
 * config.h: the build's defaults, included first by every core file (as
 * tzcode's private.h is).  It decides three things once, for every file:
 *
 *   - which system interfaces the headers declare (feature-test macros
 *     must come before any system header, so this file comes first);
 *   - that nothing is exported but what monostamp.h marks MONOSTAMP_API,
 *     however the core is compiled: the Python extension, the Lua rock and
 *     libmonostamp.so each build it with their own flags, and the Python
 *     and Lua modules may be loaded into one process (see below);
 *   - the few compiler hints and constants the files share.
 */
#ifndef MONOSTAMP_CONFIG_H
#define MONOSTAMP_CONFIG_H

/* POSIX 2008 plus the BSD/GNU extras glibc hides under _DEFAULT_SOURCE
 * (MAP_ANONYMOUS, CLOCK_REALTIME_COARSE, st_mtim).  A build that sets its
 * own (say -D_GNU_SOURCE) keeps it.  The one place these are written: the
 * Makefile reads them here for the tests' and benchmarks' files. */
#if !defined(_WIN32)
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif
#endif

/* Built as libmonostamp (MONOSTAMP_EXPORTS), the public functions are
 * exported.  Compiled into another module, they are hidden like the rest:
 * the Python extension and the Lua rock may share one process, and each
 * must export only its own entry point, whatever flags built it.  (ELF
 * keeps the most hidden of a symbol's declarations, so the bindings' own
 * default-visibility view of monostamp.h changes nothing.) */
#if !defined(MONOSTAMP_EXPORTS) && !defined(MONOSTAMP_API) && defined(__GNUC__) && \
    !defined(_WIN32)
#define MONOSTAMP_API __attribute__((visibility("hidden")))
#endif

#include <stddef.h>
#include <stdint.h>

#include "monostamp_host.h"

/*
 * Every internal header wraps its declarations in MONOSTAMP__HIDDEN_BEGIN
 * and MONOSTAMP__HIDDEN_END, so each `monostamp__` function is hidden
 * however the core is compiled: a build without -fvisibility=hidden
 * (luarocks' defaults, say) still exports only MONOSTAMP_API.  A
 * definition takes the visibility of its earlier declaration, and
 * -Wmissing-prototypes makes sure there is one.
 *
 * Why not one push here for everything: the pragma also marks the
 * declarations that follow it, system headers' included, and a libc
 * function declared hidden no longer links ("hidden symbol `mmap' isn't
 * defined").  So system headers stay outside the wrapped regions.
 */
#if defined(__GNUC__) && !defined(_WIN32)
#define MONOSTAMP__HIDDEN_BEGIN _Pragma("GCC visibility push(hidden)")
#define MONOSTAMP__HIDDEN_END _Pragma("GCC visibility pop")
#else
#define MONOSTAMP__HIDDEN_BEGIN
#define MONOSTAMP__HIDDEN_END
#endif

/* A stamp leaves errno as it found it, also when it took a rare path (a
 * checkpoint's look at the state file, a lead wait's nap, a rejoin): those
 * save and restore it, so that the hot path never touches it.  The preload
 * answers libc's clock calls, which leave errno alone on success. */

#if defined(__GNUC__)
#define MONOSTAMP__LIKELY(x) __builtin_expect(!!(x), 1)
#define MONOSTAMP__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MONOSTAMP__NOINLINE __attribute__((noinline))
#define MONOSTAMP__ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MONOSTAMP__LIKELY(x) (x)
#define MONOSTAMP__UNLIKELY(x) (x)
#define MONOSTAMP__NOINLINE
#define MONOSTAMP__ALWAYS_INLINE inline
#endif

/* A load-time hook, so the default clock's fork-shared page exists before
 * the program can fork.  Without one (MSVC) it is made on first use, which
 * is enough where there is no fork(). */
#if defined(__GNUC__)
#define MONOSTAMP__HAVE_CONSTRUCTOR 1
#define MONOSTAMP__CONSTRUCTOR __attribute__((constructor))
/* And its twin at exit (and unload): the default clock publishes its
 * counts into its state file (clock_counts.c). */
#define MONOSTAMP__DESTRUCTOR __attribute__((destructor))
#else
#define MONOSTAMP__HAVE_CONSTRUCTOR 0
#define MONOSTAMP__CONSTRUCTOR
#define MONOSTAMP__DESTRUCTOR
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#define MONOSTAMP__THREAD_LOCAL __declspec(thread)
#else
#define MONOSTAMP__THREAD_LOCAL _Thread_local
#endif

#define MONOSTAMP__NS_PER_S INT64_C(1000000000)

/* The size of the lines caches move between cores: fields written by
 * different parties are kept this far apart. */
#define MONOSTAMP__CACHE_LINE 64

#endif
