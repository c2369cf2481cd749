/*
** lsleep.c: sleep_ns and sleep_until_ns, the core's precise naps with a
** finish in Lua (bindings/lua/monostamp/sleep_finish.lua, issue 23).
**
** The core wakes within a fraction of a microsecond of its deadline, but
** the caller's Lua code runs later: after a long sleep the way back into
** the interpreter is cold (docs/sleep.md).  A sleep's contract is about the
** caller's code, so both functions check their arguments here and hand the
** deadline to the finish that monostamp.lua registers: it has the core
** sleep to a learned lead before the deadline (_sleep_until_core) and
** spins the rest in Lua.  Without one (monostamp.core required alone), the
** core sleeps alone, as before.
**
** sleep_ns reads the clock before anything else: whatever runs between the
** caller's call and that reading is lateness the caller sees.
**
** The finish is kept in the registry, per Lua state, under the address of
** a static: one module may serve several states.
*/

#define lsleep_c
#define LUA_LIB

#include "lmonostamp.h"

static const char finish_key = 0;


/* The optional tolerance of both sleeps, argument 2. */
static int64_t opt_tolerance (lua_State *L) {
  return lua_isnoneornil(L, 2) ? MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS
                               : lms_checkns(L, 2);
}


static int bad_tolerance (lua_State *L, int64_t tolerance_ns) {
  return lms_result(L, MONOSTAMP_EINVAL, 0, 2, NULL, lua_pushfstring(L,
      "tolerance_ns must be >= 0, not %I", (lua_Integer)tolerance_ns));
}


/* The core's sleep alone: true, or a runtime failure's results. */
static int core_sleep (lua_State *L, int64_t deadline_ns, int64_t tolerance_ns,
                       const char *context) {
  int rc = monostamp_sleep_until(deadline_ns, tolerance_ns);
  lua_pushboolean(L, 1);
  return lms_result(L, rc, 1, 0, context, NULL);
}


/* Sleeps to a checked deadline: through the registered finish, whose
** results it returns, or the core alone.  A past deadline goes to the
** finish too, which returns at once: the finish itself calls
** sleep_until_ns(0) to warm this path before a sleep's end. */
static int sleep_to (lua_State *L, int64_t deadline_ns, int64_t tolerance_ns,
                     const char *context) {
  int base;
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &finish_key) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return core_sleep(L, deadline_ns, tolerance_ns, context);
  }
  base = lua_gettop(L) - 1;
  lua_pushinteger(L, (lua_Integer)deadline_ns);
  lua_pushinteger(L, (lua_Integer)tolerance_ns);
  lua_call(L, 2, LUA_MULTRET);
  return lua_gettop(L) - base;
}


/*
** sleep_ns(ns [, tolerance_ns]).  The unit is in the name because Python's
** monostamp.sleep() takes float seconds, and a Lua sleep(1) that slept one
** nanosecond would be the worse surprise for someone who knows both.
*/
int lms_sleep_ns (lua_State *L) {
  int64_t now = monostamp_monotonic_ns();  /* first: see the top of the file */
  int64_t ns = lms_checkns(L, 1);
  int64_t tolerance_ns = opt_tolerance(L);
  if (ns < 0)
    return lms_result(L, MONOSTAMP_EINVAL, 0, 1, NULL, lua_pushfstring(L,
        "ns must be >= 0, not %I", (lua_Integer)ns));
  if (tolerance_ns < 0)
    return bad_tolerance(L, tolerance_ns);
  if (ns > INT64_MAX - now)
    return lms_result(L, MONOSTAMP_ERANGE, 0, 1, NULL, lua_pushfstring(L,
        "a sleep of %I ns ends past the monotonic clock's range", (lua_Integer)ns));
  return sleep_to(L, now + ns, tolerance_ns, "sleep_ns");
}


/* sleep_until_ns(deadline_ns [, tolerance_ns]): on monotonic_ns()'s scale;
** a deadline already past returns at once. */
int lms_sleep_until_ns (lua_State *L) {
  int64_t deadline_ns = lms_checkns(L, 1);
  int64_t tolerance_ns = opt_tolerance(L);
  if (tolerance_ns < 0)  /* any deadline is valid */
    return bad_tolerance(L, tolerance_ns);
  return sleep_to(L, deadline_ns, tolerance_ns, "sleep_until_ns");
}


/* _sleep_until_core(deadline_ns, tolerance_ns): sleep_until_ns without
** the finish.  Private: the finish's own sleep, and the benchmark's
** baseline (the path every sleep took before the finish). */
int lms_sleep_until_core (lua_State *L) {
  int64_t deadline_ns = lms_checkns(L, 1);
  int64_t tolerance_ns = opt_tolerance(L);
  if (tolerance_ns < 0)
    return bad_tolerance(L, tolerance_ns);
  return core_sleep(L, deadline_ns, tolerance_ns, "sleep_until_ns");
}


/* _sleep_finish(f): registers f(deadline_ns, tolerance_ns), which both
** sleeps call with their checked arguments and whose results they return;
** nil unregisters.  Private: monostamp/sleep_finish.lua. */
int lms_sleep_finish (lua_State *L) {
  if (!lua_isnil(L, 1))
    luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &finish_key);
  lua_pushboolean(L, 1);
  return 1;
}
