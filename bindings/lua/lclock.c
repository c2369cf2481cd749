/*
** lclock.c: monostamp.clock{...}, the clock userdata (the core's clock
** and an open flag; what it was built with is asked of the core each
** time), and the module's functions on the default clock, which are the
** same C functions with the default clock as an upvalue.
*/

#define lclock_c
#define LUA_LIB

#include <string.h>

#include "lmonostamp.h"

/* Lua's userdata memory is aligned for int64_t, double and pointers and
** never moves: what the core's clock storage needs. */
typedef struct LClock {
  monostamp_clock clock;
  int open;  /* 0 once closed (by close, __close or __gc) */
} LClock;

/* Argument 1 as a clock, open or closed.  The metatable is upvalue 1 of
** every method: comparing with it saves luaL_checkudata's lookup by name,
** most of a method's cost. */
static LClock *toclockp (lua_State *L) {
  LClock *p = (LClock *)lua_touserdata(L, 1);
  if (p != NULL && lua_getmetatable(L, 1)) {
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (same)
      return p;
  }
  luaL_argerror(L, 1, lua_pushfstring(L, LMS_CLOCK_TYPE " expected, got %s",
                                      luaL_typename(L, 1)));
  return NULL;
}

static monostamp_clock *toclock (lua_State *L) {
  LClock *p = toclockp(L);
  if (!p->open)
    luaL_error(L, "attempt to use a closed clock");
  return &p->clock;
}

/* ---- The constructor ---- */

/* Pushes a field of the table at 1; 0 when absent.  Of type 't' unless
** LUA_TNONE, else an argument error: no conversion, not even to string. */
static int getoption (lua_State *L, const char *field, int t) {
  int got = lua_getfield(L, 1, field);
  if (got != LUA_TNIL && got != t && t != LUA_TNONE)
    luaL_argerror(L, 1, lua_pushfstring(L, "%s: %s expected, got %s", field,
                                        lua_typename(L, t), luaL_typename(L, -1)));
  return got != LUA_TNIL;
}

/* A string option, or NULL; the table keeps it alive after the pop. */
static const char *opt_string (lua_State *L, const char *field) {
  const char *s = NULL;
  if (getoption(L, field, LUA_TSTRING))
    s = lms_tostring(L, -1, 1, field);
  lua_pop(L, 1);
  return s;
}

/* A typo ("polcy") would otherwise build a clock with the default: the
** core names a key that is no option, with its "did you mean". */
static void check_option_names (lua_State *L) {
  char why[256];
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);  /* the value */
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_argerror(L, 1, lua_pushfstring(L, "option names are strings, got %s",
                                          luaL_typename(L, -1)));
    if (monostamp_option_unknown(lua_tostring(L, -1), why, sizeof why) != 0)
      luaL_argerror(L, 1, why);
  }
}

/* Types here, values by the core. */
static void tooptions (lua_State *L, monostamp_options *o) {
  static const char *const named[] = {"policy", "source", "on_lead"};
  int *field[] = {&o->policy, &o->source, &o->on_lead};
  const char *s;
  int i;
  luaL_checktype(L, 1, LUA_TTABLE);
  check_option_names(L);
  for (i = 0; i < 3; i++)
    if ((s = opt_string(L, named[i])) != NULL)
      *field[i] = lms_option(L, 1, named[i], s);
  o->zone = opt_string(L, "zone");
  o->shared_path = opt_string(L, "shared");
  if (getoption(L, "trust_group", LUA_TBOOLEAN))
    o->trust_group = lua_toboolean(L, -1);
  if (getoption(L, "max_lead_ns", LUA_TNONE))  /* absent: the default bound */
    o->max_lead_ns = lms_tons(L, -1, 1, "max_lead_ns");
  if ((o->has_start_ns = getoption(L, "start_ns", LUA_TNONE)))
    o->start_ns = lms_tons(L, -1, 1, "start_ns");
  lua_pop(L, 3);
}

int lms_clock_new (lua_State *L) {
  monostamp_options options;
  char why[4096 + 2 * MONOSTAMP_ZONE_NAME_MAX + 256];  /* the core's sentence, a path in it */
  LClock *p;
  int rc;
  monostamp_options_init(&options);
  if (!lua_isnoneornil(L, 1))
    tooptions(L, &options);
  rc = monostamp_options_text(&options, why, sizeof why);
  if (rc != MONOSTAMP_OK)
    return lms_result(L, rc, 0, 1, NULL, why);
  lua_settop(L, 1);  /* keep the table, and with it the strings in 'options' */
  p = (LClock *)lms_newuserdata(L, sizeof(LClock));
  memset(p, 0, sizeof *p);  /* no metatable yet: no __gc on failure */
  rc = monostamp_clock_init(&p->clock, &options);
  if (rc != MONOSTAMP_OK && monostamp_clock_init_fault(rc, &options, why, sizeof why) > 0)
    return lms_result(L, rc, 0, 0, NULL, why);  /* the zone's or the state file's fault */
  if (rc != MONOSTAMP_OK)  /* only EINVAL is the options' fault */
    return lms_result(L, rc, 0, rc == MONOSTAMP_EINVAL ? 1 : 0,
                      rc == MONOSTAMP_ENOZONE ? "local zone" : "clock", NULL);
  p->open = 1;
  luaL_setmetatable(L, LMS_CLOCK_TYPE);
  return 1;
}

/* ---- The calls a clock and the module share ---- */

/* As a module function the default clock is upvalue 2 and the arguments
** start at 1; as a method (no upvalue 2) the clock is argument 1.  So a
** bad argument is numbered as the caller wrote it. */
static monostamp_clock *target (lua_State *L, int *first) {
  monostamp_clock *clock = (monostamp_clock *)lua_touserdata(L, lua_upvalueindex(2));
  *first = clock != NULL ? 1 : 2;
  return clock != NULL ? clock : toclock(L);
}

/* For the default clock, MONOSTAMP_SHARED=path is the context when its
** state file is to blame (the core says when). */
static int fail (lua_State *L, int rc, int first, const char *call, const char *why) {
  char context[4096 + 256];
  if (first == 1 && monostamp_default_context(rc, context, sizeof context) > 0)
    return lms_result(L, rc, 0, 0, NULL, context);  /* the core's sentence */
  return lms_result(L, rc, 0, 0, call, why);
}

/* A call refused: the core's sentence, and the argument it blames (1: the
** clock, 2: the value) numbered as the caller wrote it. */
static int clock_fault (lua_State *L, int rc, int first, monostamp_clock *clock,
                        const char *call, int64_t value) {
  char why[256];
  int arg = monostamp_clock_fault(clock, call, rc, value, why, sizeof why);
  if (arg > 0)
    return lms_result(L, rc, 0, arg + first - 2, NULL, why);
  return fail(L, rc, first, call, why[0] != '\0' ? why : NULL);
}

/* now, now_us: the stamp and its offset; time_ns, time_us: the stamp. */
#define STAMP_CALL(name, type, nres, ...) \
  static int c_##name (lua_State *L) { \
    int first; \
    type out; \
    monostamp_clock *clock = target(L, &first); \
    int rc = monostamp_##name(clock, &out); \
    if (rc != MONOSTAMP_OK) \
      return clock_fault(L, rc, first, clock, #name, 0); \
    __VA_ARGS__; \
    return nres; \
  }
STAMP_CALL(now, monostamp_stamp, 2, lua_pushinteger(L, (lua_Integer)out.utc_ns),
           lua_pushinteger(L, (lua_Integer)out.offset_s))
STAMP_CALL(now_us, monostamp_stamp, 2, lua_pushinteger(L, (lua_Integer)out.utc_ns),
           lua_pushinteger(L, (lua_Integer)out.offset_s))
STAMP_CALL(time_ns, int64_t, 1, lua_pushinteger(L, (lua_Integer)out))
STAMP_CALL(time_us, int64_t, 1, lua_pushinteger(L, (lua_Integer)out))

/* Lowercase text, so ids of one clock compare with < as they were made. */
static int c_uuid7 (lua_State *L) {
  int first;
  uint8_t id[16];
  char text[MONOSTAMP_UUID_TEXT_SIZE];
  monostamp_clock *clock = target(L, &first);
  int rc = monostamp_uuid7(clock, id);
  if (rc != MONOSTAMP_OK)
    return clock_fault(L, rc, first, clock, "uuid7", 0);
  monostamp_uuid_format(id, text);
  lua_pushlstring(L, text, MONOSTAMP_UUID_TEXT_SIZE - 1);
  return 1;
}

/* take(n): first, n, step of n stamps reserved at once. */
static int c_take (lua_State *L) {
  int first;
  monostamp_clock *clock = target(L, &first);
  int64_t n = lms_checkns(L, first), start = 0, step = 0;
  int rc = monostamp_clock_take(clock, n, &start, &step);
  if (rc != MONOSTAMP_OK)
    return clock_fault(L, rc, first, clock, "take", n);
  lua_pushinteger(L, (lua_Integer)start);
  lua_pushinteger(L, (lua_Integer)n);
  lua_pushinteger(L, (lua_Integer)step);
  return 3;
}

static int c_set_policy (lua_State *L) {
  int first;
  monostamp_clock *clock = target(L, &first);
  int rc = monostamp_clock_set_policy(clock, lms_checkoption(L, first, "policy"));
  lua_pushboolean(L, 1);
  return lms_result(L, rc, 1, first, NULL, NULL);
}

/* The default clock's functions when it is unusable: its error, each call. */
static int d_unusable (lua_State *L) {
  monostamp_clock *clock;
  int rc = monostamp_default_clock(&clock);
  return fail(L, rc, 1, lua_tostring(L, lua_upvalueindex(1)), NULL);
}

/* ---- The other methods ---- */

/* What the clock was made with, asked of the core; zone "" is the local one.
** policy is shared with the default clock (a compound literal for 'first'). */
#define GETTER(name, push, value) \
  static int c_##name (lua_State *L) { push(L, value); return 1; }
GETTER(policy, lua_pushstring, monostamp_policy_name(monostamp_clock_policy(target(L, &(int){0}))))
GETTER(source, lua_pushstring, monostamp_source_name(monostamp_clock_source(toclock(L))))
GETTER(zone, lua_pushstring, monostamp_zone_name(monostamp_clock_zone(toclock(L))))
GETTER(max_lead_ns, lua_pushinteger, (lua_Integer)monostamp_clock_max_lead_ns(toclock(L)))
GETTER(on_lead, lua_pushstring, monostamp_on_lead_name(monostamp_clock_on_lead(toclock(L))))
GETTER(is_shared, lua_pushboolean, monostamp_clock_is_shared(toclock(L)))

static int c_stats (lua_State *L) {
  monostamp_stats st;
  monostamp_clock_stats(toclock(L), &st);
  lua_createtable(L, 0, 9);
#define SETSTAT(f)	(lua_pushinteger(L, (lua_Integer)st.f), lua_setfield(L, -2, #f))
  SETSTAT(readings); SETSTAT(backward_steps); SETSTAT(largest_backward_ns);
  SETSTAT(duplicates); SETSTAT(forced_increments); SETSTAT(lead_ns);
  SETSTAT(max_lead_ns); SETSTAT(lead_waits); SETSTAT(lead_errors);
#undef SETSTAT
  return 1;
}

/* set and advance: true, or an argument error. */
static int manual (lua_State *L, const char *what,
                   int (*f) (monostamp_clock *, int64_t)) {
  monostamp_clock *clock = toclock(L);
  int64_t ns = lms_checkns(L, 2);
  int rc = f(clock, ns);
  lua_pushboolean(L, 1);
  return rc == MONOSTAMP_OK ? 1 : clock_fault(L, rc, 2, clock, what, ns);
}

static int c_set (lua_State *L) {
  return manual(L, "set", monostamp_manual_set);
}

static int c_advance (lua_State *L) {
  return manual(L, "advance", monostamp_manual_advance);
}

/* close (true), and __close and __gc (whose results Lua drops): idempotent. */
static int c_close (lua_State *L) {
  LClock *p = toclockp(L);
  if (p->open) {
    p->open = 0;
    monostamp_clock_destroy(&p->clock);
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int c_tostring (lua_State *L) {
  LClock *p = toclockp(L);
  char what[MONOSTAMP_ZONE_NAME_MAX + 128];
  if (!p->open)
    lua_pushfstring(L, LMS_CLOCK_TYPE " (closed): %p", (void *)p);
  else {
    monostamp_clock_describe(&p->clock, what, sizeof what);
    lua_pushfstring(L, LMS_CLOCK_TYPE " (%s): %p", what, (void *)p);
  }
  return 1;
}

/* Methods of clocks; the first NSHARED are the module's functions too. */
static const luaL_Reg clock_methods[] = {
  {"now", c_now},
  {"now_us", c_now_us},
  {"policy", c_policy},
  {"set_policy", c_set_policy},
  {"take", c_take},
  {"time_ns", c_time_ns},
  {"time_us", c_time_us},
  {"uuid7", c_uuid7},
  {"advance", c_advance},
  {"close", c_close},
  {"is_shared", c_is_shared},
  {"max_lead_ns", c_max_lead_ns},
  {"on_lead", c_on_lead},
  {"set", c_set},
  {"source", c_source},
  {"stats", c_stats},
  {"zone", c_zone},
  {NULL, NULL}
};
#define NSHARED 8

static const luaL_Reg clock_metameth[] = {
  {"__close", c_close},  /* Lua 5.4's <close>; harmless in 5.3 */
  {"__gc", c_close},
  {"__tostring", c_tostring},
  {NULL, NULL}
};

void lms_clock_openmeta (lua_State *L, monostamp_clock *dflt) {
  int i;
  luaL_newmetatable(L, LMS_CLOCK_TYPE);  /* also sets __name */
  lua_pushvalue(L, -1);
  luaL_setfuncs(L, clock_metameth, 1);
  luaL_newlibtable(L, clock_methods);
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, clock_methods, 1);
  lua_setfield(L, -2, "__index");
  for (i = 0; i < NSHARED; i++) {
    const char *name = clock_methods[i].name;
    if (dflt != NULL) {
      lua_pushvalue(L, -1);
      lua_pushlightuserdata(L, dflt);
      lua_pushcclosure(L, clock_methods[i].func, 2);
    } else {
      lua_pushstring(L, name);
      lua_pushcclosure(L, d_unusable, 1);
    }
    lua_setfield(L, -3, strcmp(name, "policy") == 0 ? "get_policy" : name);
  }
  lua_pop(L, 1);
}
