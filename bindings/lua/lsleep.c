/*
** lsleep.c: sleep_ns and sleep_until_ns.  The core plans each sleep
** (csrc/sleep_finish.c); the finish monostamp.lua registers
** (monostamp/sleep_finish.lua) carries the plan out in Lua, so that lua.c's
** Ctrl-C hook runs between naps.  Without one (monostamp.core alone) the
** core sleeps alone.  The finish is kept per Lua state, in the registry.
*/

#define lsleep_c
#define LUA_LIB

#include "lmonostamp.h"

#define PLAN_META "monostamp.sleep_plan"

static const char finish_key = 0;

static int core_sleep (lua_State *L, int64_t deadline_ns, int64_t tolerance_ns,
                       const char *context) {
  int rc = monostamp_sleep_until(deadline_ns, tolerance_ns);
  lua_pushboolean(L, 1);
  return lms_result(L, rc, 1, 0, context, NULL);
}

/* ns, not seconds: a Lua sleep(1) that slept 1 ns would surprise anyone
** who knows Python's monostamp.sleep().  The core checks the arguments and
** plans; a past deadline goes to the finish too, which returns at once (the
** finish calls sleep_until_ns(0) to warm this path before a sleep's end). */
static int sleep_args (lua_State *L, int is_duration, const char *context) {
  int64_t now = monostamp_monotonic_ns();  /* first: what runs before is lateness */
  int64_t ns = lms_checkns(L, 1);
  int64_t tolerance_ns = lua_isnoneornil(L, 2) ? MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS
                                               : lms_checkns(L, 2);
  int finish = lua_rawgetp(L, LUA_REGISTRYINDEX, &finish_key) == LUA_TFUNCTION;
  int base = lua_gettop(L) - 1, bad = 0, what;
  monostamp_sleep_plan plan;
  char why[96];
  what = monostamp_sleep_start(&plan, now, ns, is_duration, tolerance_ns, finish, &bad, why,
                               sizeof why);
  if (what < 0)
    return lms_result(L, what, 0, bad, NULL, why);
  if (!finish)
    return core_sleep(L, plan.deadline_ns, tolerance_ns, context);
  lua_pushinteger(L, (lua_Integer)plan.deadline_ns);
  if (what == MONOSTAMP_SLEEP_NAP) {  /* the core has a part: the finish needs the plan */
    *(monostamp_sleep_plan *)lms_newuserdata(L, sizeof plan) = plan;
    luaL_newmetatable(L, PLAN_META);  /* made once, then found */
    lua_setmetatable(L, -2);
  } else {
    lua_pushnil(L);
  }
  lua_pushinteger(L, what);
  lua_call(L, 3, LUA_MULTRET);
  return lua_gettop(L) - base;
}

int lms_sleep_ns (lua_State *L) {
  return sleep_args(L, 1, "sleep_ns");
}

int lms_sleep_until_ns (lua_State *L) {
  return sleep_args(L, 0, "sleep_until_ns");
}

/* _sleep_nap(plan), _sleep_step(plan, now_ns), _sleep_finish(f or nil):
** private, for monostamp/sleep_finish.lua. */
int lms_sleep_nap (lua_State *L) {
  monostamp_sleep_plan *plan = luaL_checkudata(L, 1, PLAN_META);
  return core_sleep(L, plan->until_ns, plan->until_tolerance_ns, "sleep_until_ns");
}

int lms_sleep_step (lua_State *L) {
  monostamp_sleep_plan *plan = luaL_checkudata(L, 1, PLAN_META);
  lua_pushinteger(L, monostamp_sleep_step(plan, lms_checkns(L, 2)));
  return 1;
}

int lms_sleep_finish (lua_State *L) {
  if (!lua_isnil(L, 1))
    luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &finish_key);
  lua_pushboolean(L, 1);
  return 1;
}
