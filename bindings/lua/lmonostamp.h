/*
** lmonostamp.h: what the Lua binding's files share, and nothing they do
** not.  Private to bindings/lua/: not installed, not a public API.
**
**   lmonostamp.c  the module: luaopen_monostamp_core, the free functions,
**                 the one result mapper and the converters below
**   lclock.c      the clock userdata: its constructor, methods and
**                 metatable, and the module's functions on the default
**                 clock (the same functions)
**   lsleep.c      sleep_ns and sleep_until_ns, finished in Lua
**
** Every function declared here is hidden (LMS_FUNC), so however the files
** are compiled (a plain `luarocks make` passes no -fvisibility=hidden) the
** module exports luaopen_monostamp_core alone.
*/

#ifndef lmonostamp_h
#define lmonostamp_h

#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

#include "monostamp.h"

#if !defined(LUA_VERSION_NUM) || LUA_VERSION_NUM < 503
#error "monostamp needs Lua 5.3 or later (64-bit integers)"
#endif

#if LUA_MAXINTEGER < INT64_MAX
#error "monostamp needs a 64-bit lua_Integer"
#endif


/*
** {======================================================
** Compatibility with Lua 5.3
** =======================================================
*/
#if LUA_VERSION_NUM >= 504
#define lms_newuserdata(L, size)	lua_newuserdatauv(L, size, 0)
#else
#define lms_newuserdata(L, size)	lua_newuserdata(L, size)
#define luaL_pushfail(L)	lua_pushnil(L)
#endif
/* }====================================================== */


/*
** {======================================================
** Visibility
** =======================================================
*/

/* Functions the binding's files share: hidden, as Lua's own LUAI_FUNC
** are.  An attribute on each declaration rather than a visibility pragma
** around the file, so lua.h's and monostamp.h's declarations (included
** above) keep their own. */
#if defined(__GNUC__) && !defined(_WIN32)
#define LMS_FUNC	__attribute__((visibility("hidden"))) extern
#else
#define LMS_FUNC	extern
#endif

/* The opener is the one symbol the module exports.  LUAMOD_API alone is
** plain `extern` on ELF (it means dllexport only in a Windows DLL build),
** so -fvisibility=hidden would hide it too: say "default" explicitly. */
#if defined(__GNUC__) && !defined(_WIN32)
#define LMS_EXPORT	__attribute__((visibility("default"))) LUAMOD_API
#else
#define LMS_EXPORT	LUAMOD_API
#endif

/* require "monostamp" is bindings/lua/monostamp.lua, which loads this C
** part as monostamp.core (so `luarocks make` leaves no monostamp.so in the
** source root for `require "monostamp"` or `import monostamp` to find). */
LMS_EXPORT int luaopen_monostamp_core (lua_State *L);

/* The string at 'arg' for the core, which reads C strings: one with an
** embedded NUL raises a bad-argument error instead of being cut short. */
LMS_FUNC const char *lms_checkname (lua_State *L, int arg);

/* }====================================================== */


/* The clock userdata's metatable, in the registry (and its __name). */
#define LMS_CLOCK_TYPE	"monostamp.Clock"


/*
** {======================================================
** Results and converters (lmonostamp.c)
** =======================================================
*/

/*
** The one place where a core code becomes Lua results; see lmonostamp.c.
** 'rc' >= 0: success, returns 'nres' (values the caller pushed).  Else an
** argument error if 'arg' > 0 and the code is EINVAL, ENOTSUP or ERANGE,
** or fail, "context: reason", code.  'why' (NULL: monostamp_strerror(rc))
** is the reason.
*/
LMS_FUNC int lms_result (lua_State *L, int rc, int nres, int arg,
                         const char *context, const char *why);

/* The value at 'idx' as integer nanoseconds, else an argument error for
** argument 'arg' ('field', if not NULL, names the table field). */
LMS_FUNC int64_t lms_tons (lua_State *L, int idx, int arg, const char *field);

#define lms_checkns(L, arg)	lms_tons(L, arg, arg, NULL)


/* Argument 'arg' as a policy name, or an argument error listing them. */
LMS_FUNC monostamp_policy lms_checkpolicy (lua_State *L, int arg);

/* }====================================================== */


/*
** {======================================================
** Sleeping (lsleep.c)
** =======================================================
*/

/* monostamp.sleep_ns and sleep_until_ns: the arguments checked, then the
** registered finish (monostamp/sleep_finish.lua) or the core alone. */
LMS_FUNC int lms_sleep_ns (lua_State *L);
LMS_FUNC int lms_sleep_until_ns (lua_State *L);
/* _sleep_nap and _sleep_step: a plan's nap and step, for the finish;
** _sleep_finish: registers the finish. */
LMS_FUNC int lms_sleep_nap (lua_State *L);
LMS_FUNC int lms_sleep_step (lua_State *L);
LMS_FUNC int lms_sleep_finish (lua_State *L);

/* }====================================================== */


/*
** {======================================================
** Clocks (lclock.c)
** =======================================================
*/

/* monostamp.clock{...}: the constructor. */
LMS_FUNC int lms_clock_new (lua_State *L);

/* Creates the clock metatable in the registry, and sets in the table below
** it the module's functions on the default clock 'dflt' (NULL: unusable,
** each call then fails with the core's error for it). */
LMS_FUNC void lms_clock_openmeta (lua_State *L, monostamp_clock *dflt);

/* }====================================================== */


#endif
