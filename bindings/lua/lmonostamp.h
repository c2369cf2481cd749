/*
** lmonostamp.h: what the Lua binding's files share; private to
** bindings/lua/.  lmonostamp.c: the module, its free functions and the
** converters; lclock.c: the clock userdata and the default clock's
** functions; lsleep.c: the sleeps.
*/

#ifndef lmonostamp_h
#define lmonostamp_h

#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

#include "monostamp_host.h"

#if !defined(LUA_VERSION_NUM) || LUA_VERSION_NUM < 503
#error "monostamp needs Lua 5.3 or later (64-bit integers)"
#endif

#if LUA_MAXINTEGER < INT64_MAX
#error "monostamp needs a 64-bit lua_Integer"
#endif

#if LUA_VERSION_NUM >= 504
#define lms_newuserdata(L, size)	lua_newuserdatauv(L, size, 0)
#else
#define lms_newuserdata(L, size)	lua_newuserdata(L, size)
#define luaL_pushfail(L)	lua_pushnil(L)
#endif

/* Hidden per declaration, as Lua's LUAI_FUNC, and the opener "default"
** explicitly: a plain `luarocks make` passes no -fvisibility=hidden, and
** LUAMOD_API is plain extern on ELF. */
#if defined(__GNUC__) && !defined(_WIN32)
#define LMS_FUNC	__attribute__((visibility("hidden"))) extern
#define LMS_EXPORT	__attribute__((visibility("default"))) LUAMOD_API
#else
#define LMS_FUNC	extern
#define LMS_EXPORT	LUAMOD_API
#endif

/* monostamp.core: monostamp.lua gives it its public name. */
LMS_EXPORT int luaopen_monostamp_core (lua_State *L);

#define LMS_CLOCK_TYPE	"monostamp.Clock"

/* The one place a core code becomes Lua results: 'rc' >= 0 returns 'nres'
** (pushed by the caller); EINVAL, ENOTSUP and ERANGE raise an argument
** error when 'arg' > 0; else fail, "context: reason", code.  'why' (NULL:
** monostamp_strerror(rc)) is the reason. */
LMS_FUNC int lms_result (lua_State *L, int rc, int nres, int arg,
                         const char *context, const char *why);
/* The value at 'idx' as integer ns, else an argument error of 'arg'
** ('field', if not NULL, names the table field). */
LMS_FUNC int64_t lms_tons (lua_State *L, int idx, int arg, const char *field);
#define lms_checkns(L, arg)	lms_tons(L, arg, arg, NULL)
/* The string at 'idx' (NULL if none) for the core: one with an embedded
** NUL is an argument error of 'arg', naming 'field', never cut short. */
LMS_FUNC const char *lms_tostring (lua_State *L, int idx, int arg, const char *field);
/* The value the core gives 'name' for the option 'field' ("policy",
** "source", "on_lead"), else an argument error of 'arg' with its rule;
** lms_checkoption: the string at 'arg'. */
LMS_FUNC int lms_option (lua_State *L, int arg, const char *field, const char *name);
LMS_FUNC int lms_checkoption (lua_State *L, int arg, const char *field);

/* lsleep.c: the sleeps, and the plan's nap, step and finish for
** monostamp/sleep_finish.lua. */
LMS_FUNC int lms_sleep_ns (lua_State *L);
LMS_FUNC int lms_sleep_until_ns (lua_State *L);
LMS_FUNC int lms_sleep_nap (lua_State *L);
LMS_FUNC int lms_sleep_step (lua_State *L);
LMS_FUNC int lms_sleep_finish (lua_State *L);

/* lclock.c: monostamp.clock{...}; the clock metatable, and into the table
** below it the default clock's functions ('dflt' NULL: each call fails with
** the core's error for it). */
LMS_FUNC int lms_clock_new (lua_State *L);
LMS_FUNC void lms_clock_openmeta (lua_State *L, monostamp_clock *dflt);

#endif
