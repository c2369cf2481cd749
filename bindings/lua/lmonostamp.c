/*
** lmonostamp.c: require "monostamp", unique and monotonic wall-clock
** stamps that carry the local UTC offset, for Lua 5.4 (and 5.3).
**
** A thin layer over the C core (csrc/monostamp.h), in the manner of Lua's
** own loslib.c and liolib.c: one sorted luaL_Reg per table, no globals,
** a clock userdata that embeds the core's struct.  The binding adds no
** policy of its own: it checks and converts arguments, calls the core and
** turns its result into Lua values in one place, msresult().
**
** Nanoseconds are always lua_Integer (64 bits in Lua 5.3 and 5.4), never
** lua_Number: a double cannot hold today's instants to the nanosecond.
*/

#define lmonostamp_c
#define LUA_LIB

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
#define ms_newuserdata(L, size)	lua_newuserdatauv(L, size, 0)
#else
#define ms_newuserdata(L, size)	lua_newuserdata(L, size)
#define luaL_pushfail(L)	lua_pushnil(L)
#endif
/* }====================================================== */

/* Only the opener leaves the module: the Makefile compiles with
** -fvisibility=hidden, so the core's symbols stay inside. */
#if defined(__GNUC__)
#define MS_EXPORT	__attribute__((visibility("default")))
#else
#define MS_EXPORT
#endif

MS_EXPORT int luaopen_monostamp (lua_State *L);


#define CLOCK_TYPE	"monostamp.Clock"


/*
** {======================================================
** Results and errors
** =======================================================
*/

/*
** The one place where core codes become Lua results.  'rc' is the core's
** code (>= 0 is success, and the caller has pushed 'nres' values).
**
** Argument errors raise, as luaL_argerror does: EINVAL, ENOTSUP and ERANGE
** when the caller names the argument 'arg' (> 0) that caused them; the
** message is 'subject' (which names the bad value) or the core's sentence.
**
** Everything else is a runtime failure and returns fail, message, code,
** as luaL_fileresult does: the message is "subject: reason" ('reason'
** defaults to strerror(errno) for MONOSTAMP_ESYSTEM, else the core's
** sentence), 'code' is the core's negative code; for MONOSTAMP_ESYSTEM
** the errno value follows as a fourth result.
*/
static int msresult (lua_State *L, int rc, int nres, int arg,
                     const char *subject, const char *reason) {
  int en = errno;  /* before any Lua call may change it */
  if (rc >= 0)
    return nres;
  if (arg > 0 && (rc == MONOSTAMP_EINVAL || rc == MONOSTAMP_ENOTSUP ||
                  rc == MONOSTAMP_ERANGE))
    return luaL_argerror(L, arg, subject ? subject : monostamp_strerror(rc));
  if (reason == NULL)
    reason = (rc == MONOSTAMP_ESYSTEM) ? strerror(en) : monostamp_strerror(rc);
  luaL_pushfail(L);
  if (subject)
    lua_pushfstring(L, "%s: %s", subject, reason);
  else
    lua_pushstring(L, reason);
  lua_pushinteger(L, rc);
  if (rc == MONOSTAMP_ESYSTEM) {
    lua_pushinteger(L, en);
    return 4;
  }
  return 3;
}


/*
** Nanoseconds: an integer, nothing else.  A float (even 1e9) is refused
** rather than rounded: above 2^53 a double no longer holds every
** nanosecond, and a silent conversion is the bug this module exists to
** avoid.  'field' names a table field, NULL for a plain argument.
*/
static int64_t ns_at (lua_State *L, int idx, int arg, const char *field) {
  if (lua_isinteger(L, idx))
    return (int64_t)lua_tointeger(L, idx);
  const char *pre = field ? field : "";
  const char *sep = field ? ": " : "";
  if (lua_type(L, idx) == LUA_TNUMBER)
    return luaL_argerror(L, arg, lua_pushfstring(L,
        "%s%sinteger nanoseconds expected, got float %f",
        pre, sep, lua_tonumber(L, idx)));
  return luaL_argerror(L, arg, lua_pushfstring(L,
      "%s%sinteger expected, got %s", pre, sep, luaL_typename(L, idx)));
}

#define check_ns(L, arg)	ns_at(L, arg, arg, NULL)


static monostamp_policy check_policy (lua_State *L, int arg, const char *name) {
  monostamp_policy policy = MONOSTAMP_DEFAULT_POLICY;
  int rc = monostamp_policy_from_name(name, &policy);
  if (rc != MONOSTAMP_OK)
    msresult(L, rc, 0, arg, lua_pushfstring(L, "unknown policy '%s'", name), NULL);
  return policy;
}


static monostamp_source check_source (lua_State *L, int arg, const char *name) {
  monostamp_source source = MONOSTAMP_SOURCE_REALTIME;
  int rc = monostamp_source_from_name(name, &source);
  if (rc != MONOSTAMP_OK)
    msresult(L, rc, 0, arg, lua_pushfstring(L, "unknown source '%s'", name), NULL);
  return source;
}

/* }====================================================== */


/*
** {======================================================
** Module functions on the default clock, and the free functions
** =======================================================
*/

/* The MONOSTAMP_SHARED file named in the default clock's failures. */
static const char *default_subject (lua_State *L, int rc) {
  const char *path = getenv("MONOSTAMP_SHARED");
  if (path == NULL || path[0] == '\0' ||
      (rc != MONOSTAMP_ESYSTEM && rc != MONOSTAMP_EFOREIGN &&
       rc != MONOSTAMP_EVERSION))
    return NULL;
  return lua_pushfstring(L, "MONOSTAMP_SHARED=%s", path);
}


/*
** The default clock, looked up once by luaopen_monostamp: a fixed struct in
** the core, so calling monostamp_now on it directly is monostamp_default_now
** less a call and a check on the hot path.  NULL if it was unusable, and
** then the shortcuts below return the core's error in every call.
*/
static monostamp_clock *default_clock = NULL;


static int ms_now (lua_State *L) {
  monostamp_stamp stamp;
  monostamp_clock *clock = default_clock;
  int rc = clock ? monostamp_now(clock, &stamp) : monostamp_default_now(&stamp);
  if (rc != MONOSTAMP_OK)
    return msresult(L, rc, 0, 0, default_subject(L, rc), NULL);
  lua_pushinteger(L, (lua_Integer)stamp.utc_ns);
  lua_pushinteger(L, (lua_Integer)stamp.offset_s);
  return 2;
}


static int ms_time_ns (lua_State *L) {
  int64_t ns;
  monostamp_clock *clock = default_clock;
  int rc = clock ? monostamp_time_ns(clock, &ns) : monostamp_default_time_ns(&ns);
  if (rc != MONOSTAMP_OK)
    return msresult(L, rc, 0, 0, default_subject(L, rc), NULL);
  lua_pushinteger(L, (lua_Integer)ns);
  return 1;
}


static int ms_get_policy (lua_State *L) {
  lua_pushstring(L, monostamp_policy_name(monostamp_get_policy()));
  return 1;
}


static int ms_set_policy (lua_State *L) {
  monostamp_policy policy = check_policy(L, 1, luaL_checkstring(L, 1));
  int rc = monostamp_set_policy(policy);
  lua_pushboolean(L, 1);
  return msresult(L, rc, 1, 0, default_subject(L, rc), NULL);
}


static int ms_monotonic_ns (lua_State *L) {
  lua_pushinteger(L, (lua_Integer)monostamp_monotonic_ns());
  return 1;
}


static int ms_sleep (lua_State *L) {
  int64_t duration_ns = check_ns(L, 1);
  int64_t tolerance_ns = lua_isnoneornil(L, 2)
                       ? MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS : check_ns(L, 2);
  int rc = monostamp_sleep_for(duration_ns, tolerance_ns);
  if (rc == MONOSTAMP_EINVAL && duration_ns >= 0)  /* the tolerance's fault */
    return msresult(L, rc, 0, 2, lua_pushfstring(L,
        "tolerance must not be negative, got %I", (lua_Integer)tolerance_ns), NULL);
  if (rc == MONOSTAMP_EINVAL || rc == MONOSTAMP_ERANGE)
    return msresult(L, rc, 0, 1, lua_pushfstring(L,
        "cannot sleep for %I ns (%s)", (lua_Integer)duration_ns,
        monostamp_strerror(rc)), NULL);
  lua_pushboolean(L, 1);
  return msresult(L, rc, 1, 0, NULL, NULL);
}


static int ms_zone_changed (lua_State *L) {
  (void)L;
  monostamp_zone_changed();
  return 0;
}


static int ms_clock_info (lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  monostamp_clock_info info;
  int rc = monostamp_clock_info_get(check_source(L, 1, name), &info);
  if (rc != MONOSTAMP_OK)
    return msresult(L, rc, 0, 0, name, NULL);
  lua_createtable(L, 0, 5);
  lua_pushstring(L, info.name);
  lua_setfield(L, -2, "name");
  lua_pushstring(L, info.implementation);
  lua_setfield(L, -2, "implementation");
  lua_pushinteger(L, (lua_Integer)info.resolution_ns);
  lua_setfield(L, -2, "resolution_ns");
  lua_pushboolean(L, info.adjustable);
  lua_setfield(L, -2, "adjustable");
  lua_pushboolean(L, info.monotonic);
  lua_setfield(L, -2, "monotonic");
  return 1;
}


static int ms_isoformat (lua_State *L) {
  char buf[MONOSTAMP_ISO8601_MAX + 1];
  int64_t utc_ns = check_ns(L, 1);
  lua_Integer offset_s = luaL_checkinteger(L, 2);
  lua_Integer digits = luaL_optinteger(L, 3, 9);
  int use_z = lua_toboolean(L, 4);
  int n;
  /* Range checks the int casts need; the core judges the values. */
  luaL_argcheck(L, offset_s >= INT32_MIN && offset_s <= INT32_MAX, 2,
                lua_pushfstring(L, "offset %I s out of range", offset_s));
  luaL_argcheck(L, digits >= 0 && digits <= 9, 3,
                lua_pushfstring(L, "digits must be 0..9, got %I", digits));
  n = monostamp_format_iso8601(buf, sizeof buf, utc_ns, (int32_t)offset_s,
                               (int)digits, use_z);
  if (n == MONOSTAMP_EINVAL)
    return msresult(L, n, 0, 2, lua_pushfstring(L,
        "offset %I s cannot be written as +hh:mm", offset_s), NULL);
  if (n == MONOSTAMP_ERANGE)
    return msresult(L, n, 0, 1, lua_pushfstring(L,
        "%I ns at offset %I s is outside the years 1..9999",
        (lua_Integer)utc_ns, offset_s), NULL);
  if (n < 0)
    return msresult(L, n, 0, 0, NULL, NULL);
  lua_pushlstring(L, buf, (size_t)n);
  return 1;
}


static int ms_parse (lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  int64_t utc_ns = 0;
  int32_t offset_s = 0;
  monostamp_parse_error error = {0, NULL};
  int rc = monostamp_parse_iso8601(text, len, &utc_ns, &offset_s, &error);
  if (rc != MONOSTAMP_OK)  /* positions are 1-based, as Lua's string indices */
    return msresult(L, rc, 0, 0, lua_pushfstring(L, "%s at byte %d",
        monostamp_strerror(rc), (int)error.position + 1),
        error.reason ? error.reason : "invalid");
  lua_pushinteger(L, (lua_Integer)utc_ns);
  lua_pushinteger(L, (lua_Integer)offset_s);
  return 2;
}

/* }====================================================== */


/*
** {======================================================
** Clocks
** =======================================================
*/

typedef struct LClock {
  monostamp_clock clock;
  int open;  /* 0 once closed (by close, __close or __gc) */
} LClock;


/*
** Argument 1 as a clock, open or closed.  Every method and metamethod has
** the clock metatable as its upvalue: comparing with it is luaL_checkudata
** without the registry lookup by name, which is most of a method's cost.
*/
static LClock *toclockp (lua_State *L) {
  LClock *p = (LClock *)lua_touserdata(L, 1);
  if (p != NULL && lua_getmetatable(L, 1)) {
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (same)
      return p;
  }
  luaL_argerror(L, 1, lua_pushfstring(L, CLOCK_TYPE " expected, got %s",
                                      luaL_typename(L, 1)));
  return NULL;
}


/* The one checked accessor: argument 1 as an open clock. */
static monostamp_clock *toclock (lua_State *L) {
  LClock *p = toclockp(L);
  if (!p->open)
    luaL_error(L, "attempt to use a closed clock");
  return &p->clock;
}


static void closeclock (LClock *p) {
  if (p->open) {
    p->open = 0;
    monostamp_clock_destroy(&p->clock);
  }
}


/* A table field as a string, or NULL when absent. */
static const char *opt_string (lua_State *L, const char *field) {
  const char *s = NULL;
  if (lua_getfield(L, 1, field) != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TSTRING)  /* no numbers: no conversion */
      luaL_argerror(L, 1, lua_pushfstring(L, "%s: string expected, got %s",
                                          field, luaL_typename(L, -1)));
    s = lua_tostring(L, -1);
  }
  /* The table still holds the string, so it outlives the pop. */
  lua_pop(L, 1);
  return s;
}


/* A table field as nanoseconds; 0 (and *present = 0) when absent. */
static int64_t opt_ns (lua_State *L, const char *field, int *present) {
  int64_t ns = 0;
  *present = (lua_getfield(L, 1, field) != LUA_TNIL);
  if (*present)
    ns = ns_at(L, -1, 1, field);
  lua_pop(L, 1);
  return ns;
}


static const char *const clock_options[] = {
  "max_lead_ns", "on_lead", "policy", "shared", "source", "start_ns", "zone",
  NULL
};


/* Refuses fields the constructor does not know: a typo ("polcy") would
** otherwise build a clock with the default silently. */
static void check_option_names (lua_State *L) {
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    int i = 0;
    lua_pop(L, 1);  /* the value */
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *key = lua_tostring(L, -1);
      while (clock_options[i] && strcmp(clock_options[i], key) != 0)
        i++;
      if (clock_options[i])
        continue;
      luaL_argerror(L, 1, lua_pushfstring(L, "unknown option '%s'", key));
    }
    luaL_argerror(L, 1, lua_pushfstring(L, "option names are strings, got %s",
                                        luaL_typename(L, -1)));
  }
}


/* Words the core's EINVAL from monostamp_clock_init: names and types are
** checked already, so it is one of the values below. */
static const char *options_fault (lua_State *L, const monostamp_options *o) {
  if (o->max_lead_ns < 0)
    return lua_pushfstring(L, "max_lead_ns must not be negative, got %I",
                           (lua_Integer)o->max_lead_ns);
  if (o->has_start_ns && o->source != MONOSTAMP_SOURCE_MANUAL)
    return lua_pushfstring(L, "start_ns needs source 'manual', not '%s'",
                           monostamp_source_name(o->source));
  if (o->zone && strlen(o->zone) > MONOSTAMP_ZONE_NAME_MAX)
    return lua_pushfstring(L, "zone name longer than %d bytes",
                           MONOSTAMP_ZONE_NAME_MAX);
  if (o->shared_path && o->shared_path[0] == '\0')
    return "shared: empty path";
  return NULL;
}


static int ms_clock (lua_State *L) {
  static const char *const on_lead_names[] = {"wait", "error", NULL};
  monostamp_options options;
  const char *s;
  LClock *p;
  int rc;
  monostamp_options_init(&options);
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    check_option_names(L);
    if ((s = opt_string(L, "policy")) != NULL)
      options.policy = check_policy(L, 1, s);
    if ((s = opt_string(L, "source")) != NULL)
      options.source = check_source(L, 1, s);
    if ((s = opt_string(L, "on_lead")) != NULL) {
      int i = 0;
      while (on_lead_names[i] && strcmp(on_lead_names[i], s) != 0)
        i++;
      if (on_lead_names[i] == NULL)
        luaL_argerror(L, 1, lua_pushfstring(L,
            "on_lead: expected 'wait' or 'error', got '%s'", s));
      options.on_lead = i ? MONOSTAMP_ON_LEAD_ERROR : MONOSTAMP_ON_LEAD_WAIT;
    }
    options.zone = opt_string(L, "zone");
    options.shared_path = opt_string(L, "shared");
    options.max_lead_ns = opt_ns(L, "max_lead_ns", &rc);
    options.start_ns = opt_ns(L, "start_ns", &options.has_start_ns);
  }
  lua_settop(L, 1);  /* keep the table, and with it the strings in 'options' */
  p = (LClock *)ms_newuserdata(L, sizeof(LClock));
  memset(p, 0, sizeof *p);  /* no metatable yet: no __gc on failure */
  rc = monostamp_clock_init(&p->clock, &options);
  if (rc == MONOSTAMP_EINVAL)
    return msresult(L, rc, 0, 1, options_fault(L, &options), NULL);
  if (rc != MONOSTAMP_OK)
    return msresult(L, rc, 0, 0,
                    rc == MONOSTAMP_ENOZONE
                      ? (options.zone ? options.zone : "local zone")
                      : options.shared_path,
                    NULL);
  p->open = 1;
  luaL_setmetatable(L, CLOCK_TYPE);
  return 1;
}


static int c_now (lua_State *L) {
  monostamp_stamp stamp;
  int rc = monostamp_now(toclock(L), &stamp);
  if (rc != MONOSTAMP_OK)
    return msresult(L, rc, 0, 0, NULL, NULL);
  lua_pushinteger(L, (lua_Integer)stamp.utc_ns);
  lua_pushinteger(L, (lua_Integer)stamp.offset_s);
  return 2;
}


static int c_time_ns (lua_State *L) {
  int64_t ns;
  int rc = monostamp_time_ns(toclock(L), &ns);
  if (rc != MONOSTAMP_OK)
    return msresult(L, rc, 0, 0, NULL, NULL);
  lua_pushinteger(L, (lua_Integer)ns);
  return 1;
}


static int c_policy (lua_State *L) {
  lua_pushstring(L, monostamp_policy_name(monostamp_clock_policy(toclock(L))));
  return 1;
}


static int c_set_policy (lua_State *L) {
  monostamp_clock *clock = toclock(L);
  monostamp_policy policy = check_policy(L, 2, luaL_checkstring(L, 2));
  return msresult(L, monostamp_clock_set_policy(clock, policy), 0, 2, NULL, NULL);
}


static int c_source (lua_State *L) {
  lua_pushstring(L, monostamp_source_name(monostamp_clock_source(toclock(L))));
  return 1;
}


/* The zone's name: "" for the local zone. */
static int c_zone (lua_State *L) {
  lua_pushstring(L, monostamp_zone_name(monostamp_clock_zone(toclock(L))));
  return 1;
}


static int c_is_shared (lua_State *L) {
  lua_pushboolean(L, monostamp_clock_is_shared(toclock(L)));
  return 1;
}


static int c_stats (lua_State *L) {
  monostamp_stats st;
  monostamp_clock_stats(toclock(L), &st);
  lua_createtable(L, 0, 9);
#define SETSTAT(f)	(lua_pushinteger(L, (lua_Integer)st.f), lua_setfield(L, -2, #f))
  SETSTAT(readings);
  SETSTAT(backward_steps);
  SETSTAT(largest_backward_ns);
  SETSTAT(duplicates);
  SETSTAT(forced_increments);
  SETSTAT(lead_ns);
  SETSTAT(max_lead_ns);
  SETSTAT(lead_waits);
  SETSTAT(lead_errors);
#undef SETSTAT
  return 1;
}


/* ENOTSUP from set/advance: the clock (argument 1) is the bad value. */
static int manual_result (lua_State *L, monostamp_clock *clock, int rc,
                          const char *what, int64_t ns) {
  if (rc == MONOSTAMP_ENOTSUP)
    return msresult(L, rc, 0, 1, lua_pushfstring(L,
        "%s needs a clock with source 'manual', this one's is '%s'",
        what, monostamp_source_name(monostamp_clock_source(clock))), NULL);
  return msresult(L, rc, 0, 2, lua_pushfstring(L,
      "%s by %I ns would overflow the manual reading", what, (lua_Integer)ns),
      NULL);
}


static int c_set (lua_State *L) {
  monostamp_clock *clock = toclock(L);
  int64_t ns = check_ns(L, 2);
  return manual_result(L, clock, monostamp_manual_set(clock, ns), "set", ns);
}


static int c_advance (lua_State *L) {
  monostamp_clock *clock = toclock(L);
  int64_t ns = check_ns(L, 2);
  return manual_result(L, clock, monostamp_manual_advance(clock, ns), "advance", ns);
}


/* close, __close and __gc: idempotent. */
static int c_close (lua_State *L) {
  closeclock(toclockp(L));
  return 0;
}


static int c_tostring (lua_State *L) {
  LClock *p = toclockp(L);
  if (!p->open)
    lua_pushfstring(L, CLOCK_TYPE " (closed): %p", (void *)p);
  else {
    const char *zone = monostamp_zone_name(monostamp_clock_zone(&p->clock));
    lua_pushfstring(L, CLOCK_TYPE " (%s, %s, zone '%s'%s): %p",
        monostamp_source_name(monostamp_clock_source(&p->clock)),
        monostamp_policy_name(monostamp_clock_policy(&p->clock)),
        zone[0] ? zone : "local",
        monostamp_clock_is_shared(&p->clock) ? ", shared" : "", (void *)p);
  }
  return 1;
}

/* }====================================================== */


static const luaL_Reg ms_funcs[] = {
  {"clock", ms_clock},
  {"clock_info", ms_clock_info},
  {"get_policy", ms_get_policy},
  {"isoformat", ms_isoformat},
  {"monotonic_ns", ms_monotonic_ns},
  {"now", ms_now},
  {"parse", ms_parse},
  {"set_policy", ms_set_policy},
  {"sleep", ms_sleep},
  {"time_ns", ms_time_ns},
  {"zone_changed", ms_zone_changed},
  {NULL, NULL}
};


/* Methods of clocks. */
static const luaL_Reg clock_methods[] = {
  {"advance", c_advance},
  {"close", c_close},
  {"is_shared", c_is_shared},
  {"now", c_now},
  {"policy", c_policy},
  {"set", c_set},
  {"set_policy", c_set_policy},
  {"source", c_source},
  {"stats", c_stats},
  {"time_ns", c_time_ns},
  {"zone", c_zone},
  {NULL, NULL}
};


/* Metamethods of clocks. */
static const luaL_Reg clock_metameth[] = {
  {"__gc", c_close},
  {"__close", c_close},  /* used by Lua 5.4's <close>; harmless in 5.3 */
  {"__tostring", c_tostring},
  {NULL, NULL}
};


/* The clock metatable, each method's and metamethod's one upvalue. */
static void createmeta (lua_State *L) {
  luaL_newmetatable(L, CLOCK_TYPE);  /* also sets __name */
  lua_pushvalue(L, -1);
  luaL_setfuncs(L, clock_metameth, 1);
  luaL_newlibtable(L, clock_methods);
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, clock_methods, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}


/* The core's error codes, as returned third by runtime failures. */
static void seterrors (lua_State *L) {
  static const struct { const char *name; int code; } errors[] = {
    {"EINVAL", MONOSTAMP_EINVAL}, {"ERANGE", MONOSTAMP_ERANGE},
    {"ENOTSUP", MONOSTAMP_ENOTSUP}, {"ELEAD", MONOSTAMP_ELEAD},
    {"ESYSTEM", MONOSTAMP_ESYSTEM}, {"EFOREIGN", MONOSTAMP_EFOREIGN},
    {"EVERSION", MONOSTAMP_EVERSION}, {"ENOZONE", MONOSTAMP_ENOZONE},
    {"ESYNTAX", MONOSTAMP_ESYNTAX}, {"ENOMEM", MONOSTAMP_ENOMEM},
  };
  size_t i;
  for (i = 0; i < sizeof errors / sizeof errors[0]; i++) {
    lua_pushinteger(L, errors[i].code);
    lua_setfield(L, -2, errors[i].name);
  }
}


MS_EXPORT int luaopen_monostamp (lua_State *L) {
  monostamp_clock *clock;
  if (monostamp_default_clock(&clock) == MONOSTAMP_OK)
    default_clock = clock;  /* the same pointer for every state: no race */
  luaL_newlib(L, ms_funcs);
  createmeta(L);
  lua_pushliteral(L, "monostamp");
  lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, MONOSTAMP_VERSION);
  lua_setfield(L, -2, "_VERSION");
  lua_pushstring(L, monostamp_policy_name(MONOSTAMP_DEFAULT_POLICY));
  lua_setfield(L, -2, "DEFAULT_POLICY");
  lua_pushinteger(L, MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS);
  lua_setfield(L, -2, "DEFAULT_SLEEP_TOLERANCE_NS");
  seterrors(L);
  return 1;
}
