/*
** lclock.c: monostamp.clock{...}, the clock userdata, and the module's
** functions on the default clock, which run the same method bodies on it.
**
** The userdata embeds the core's clock (opaque storage of
** MONOSTAMP_CLOCK_SIZE bytes) and a flag saying whether it is still open;
** nothing else.  What the clock was built with (source, zone, lead bound)
** is asked of the core each time, so there is one truth and no copy to
** fall out of step with it.  One metatable, made with luaL_newmetatable
** so errors name the type, with __index, __gc, __close and __tostring.
*/

#define lclock_c
#define LUA_LIB

#include <stdlib.h>
#include <string.h>

#include "lmonostamp.h"


/*
** The core's clock asks for storage aligned for int64_t, double and
** pointers that never moves once initialised: Lua's userdata memory is
** aligned for all three (LUAI_MAXALIGN) and its collector never moves it.
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
  luaL_argerror(L, 1, lua_pushfstring(L, LMS_CLOCK_TYPE " expected, got %s",
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


/*
** {======================================================
** The constructor
** =======================================================
*/

/* A table field as a string, or NULL when absent.  The core takes C
** strings, so one with a NUL inside is refused: "/x/a\0b" would
** otherwise open "/x/a". */
static const char *opt_string (lua_State *L, const char *field) {
  const char *s = NULL;
  if (lua_getfield(L, 1, field) != LUA_TNIL) {
    size_t len;
    if (lua_type(L, -1) != LUA_TSTRING)  /* no numbers: no conversion */
      luaL_argerror(L, 1, lua_pushfstring(L, "%s: string expected, got %s",
                                          field, luaL_typename(L, -1)));
    s = lua_tolstring(L, -1, &len);
    if (strlen(s) != len)
      luaL_argerror(L, 1, lua_pushfstring(L, "%s: embedded NUL at byte %d",
                                          field, (int)strlen(s) + 1));
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
    ns = lms_tons(L, -1, 1, field);
  lua_pop(L, 1);
  return ns;
}


static const char *const clock_options[] = {
  "max_lead_ns", "on_lead", "policy", "shared", "source", "start_ns", "trust_group",
  "zone", NULL
};


/* A table field as a boolean; 0 when absent. */
static int opt_boolean (lua_State *L, const char *field) {
  int b = 0;
  if (lua_getfield(L, 1, field) != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TBOOLEAN)
      luaL_argerror(L, 1, lua_pushfstring(L, "%s: boolean expected, got %s",
                                          field, luaL_typename(L, -1)));
    b = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);
  return b;
}


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


/* Pushes the value at 'idx' as a message shows it: strings quoted (a long
** one cut short, with its length), anything else as tostring does. */
static const char *pushshown (lua_State *L, int idx) {
  enum { SHOWN = 40 };
  size_t len;
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TSTRING)
    return luaL_tolstring(L, idx, NULL);
  lua_tolstring(L, idx, &len);
  if (len <= SHOWN)
    return lua_pushfstring(L, "'%s'", lua_tostring(L, idx));
  lua_pushlstring(L, lua_tostring(L, idx), SHOWN);
  return lua_pushfstring(L, "'%s...' (%I bytes)", lua_tostring(L, -1),
                         (lua_Integer)len);
}


/*
** Words the one field monostamp_options_check() found wrong, with the value
** the caller gave it and the core's rule for that field (so each rule is
** written once, in the core).  Lua's option 'shared' is the core's field
** 'shared_path'.
*/
static const char *options_fault (lua_State *L, const char *field) {
  const char *option = field, *rule;
  if (field == NULL)
    return NULL;  /* the core's own sentence will do */
  rule = monostamp_options_rule(field);
  if (strcmp(field, "shared_path") == 0)
    option = "shared";
  if (lua_istable(L, 1))
    lua_getfield(L, 1, option);
  else  /* no table: defaults, which the core never refuses */
    lua_pushnil(L);
  return lua_pushfstring(L, "%s=%s %s", option, pushshown(L, -1),
                         rule != NULL ? rule : "is not accepted");
}


/*
** Fills 'o' from the table at 1: types are checked here, values by the
** core.  A name the core does not know becomes -1, which is no policy,
** source or action, so monostamp_options_check() names that field.
*/
static void tooptions (lua_State *L, monostamp_options *o) {
  const char *s;
  int present;
  int64_t lead;
  luaL_checktype(L, 1, LUA_TTABLE);
  check_option_names(L);
  if ((s = opt_string(L, "policy")) != NULL) {
    monostamp_policy v;
    o->policy = monostamp_policy_from_name(s, &v) == MONOSTAMP_OK ? (int)v : -1;
  }
  if ((s = opt_string(L, "source")) != NULL) {
    monostamp_source v;
    o->source = monostamp_source_from_name(s, &v) == MONOSTAMP_OK ? (int)v : -1;
  }
  if ((s = opt_string(L, "on_lead")) != NULL) {
    monostamp_on_lead v;
    o->on_lead = monostamp_on_lead_from_name(s, &v) == MONOSTAMP_OK ? (int)v : -1;
  }
  o->zone = opt_string(L, "zone");
  o->shared_path = opt_string(L, "shared");
  o->trust_group = opt_boolean(L, "trust_group");
  /* Absent keeps monostamp_options_init's default bound; 0 given is none. */
  lead = opt_ns(L, "max_lead_ns", &present);
  if (present)
    o->max_lead_ns = lead;
  o->start_ns = opt_ns(L, "start_ns", &o->has_start_ns);
}


int lms_clock_new (lua_State *L) {
  monostamp_options options;
  const char *bad = NULL;
  const char *context;
  LClock *p;
  int rc;
  monostamp_options_init(&options);
  if (!lua_isnoneornil(L, 1))
    tooptions(L, &options);
  rc = monostamp_options_check(&options, &bad);
  if (rc != MONOSTAMP_OK)
    return lms_result(L, rc, 0, 1, NULL, options_fault(L, bad));
  lua_settop(L, 1);  /* keep the table, and with it the strings in 'options' */
  p = (LClock *)lms_newuserdata(L, sizeof(LClock));
  memset(p, 0, sizeof *p);  /* no metatable yet: no __gc on failure */
  rc = monostamp_clock_init(&p->clock, &options);
  if (rc != MONOSTAMP_OK) {
    if (rc == MONOSTAMP_ENOZONE && options.zone != NULL) {
      /* The core's "did you mean", as the Python binding shows it. */
      char near[MONOSTAMP_ZONE_NAME_MAX + 1];
      const char *why = monostamp_zone_suggest(options.zone, near, sizeof near) == MONOSTAMP_OK
          ? lua_pushfstring(L, "zone '%s' is not a zone this machine knows \xe2\x80\x94 "
                               "did you mean '%s'?", options.zone, near)
          : lua_pushfstring(L, "zone '%s' is not a zone this machine knows \xe2\x80\x94 give "
                               "'UTC', an IANA name such as 'Europe/Berlin' or a POSIX TZ "
                               "string", options.zone);
      return lms_result(L, rc, 0, 0, NULL, why);
    }
    if (rc == MONOSTAMP_ENOZONE)
      context = "local zone";
    else
      context = options.shared_path ? options.shared_path : "clock";
    /* Only EINVAL is the options' fault; the rest is the world's. */
    return lms_result(L, rc, 0, rc == MONOSTAMP_EINVAL ? 1 : 0, context, NULL);
  }
  p->open = 1;
  luaL_setmetatable(L, LMS_CLOCK_TYPE);
  return 1;
}

/* }====================================================== */


/*
** {======================================================
** The calls a clock and the module share
** =======================================================
*/

/*
** now, time_ns, now_us, time_us, uuid7, take, policy and set_policy are
** both methods of a clock and functions of the module on the default
** clock: one C function each, registered twice (lms_clock_openmeta).  As a
** module function it has the default clock as upvalue 2, a light userdata,
** and its arguments start at 1; as a method the clock is argument 1.  So
** a bad argument is numbered as the caller wrote it.
*/
static monostamp_clock *target (lua_State *L, int *first) {
  /* A method has no upvalue 2 (NULL); the default clock is never NULL,
  ** as an unusable one gets d_unusable instead (lms_clock_openmeta). */
  monostamp_clock *clock = (monostamp_clock *)lua_touserdata(L, lua_upvalueindex(2));
  *first = clock != NULL ? 1 : 2;
  return clock != NULL ? clock : toclock(L);
}


/*
** The context of a failure: the call's name, or for the default clock
** MONOSTAMP_SHARED=path when the state file is to blame (the core read the
** variable when it loaded, and standard Lua cannot change the environment
** since).
*/
static int fail (lua_State *L, int rc, int first, const char *call, const char *why) {
  const char *path = getenv("MONOSTAMP_SHARED");
  if (first == 1 && path != NULL && path[0] != '\0' && monostamp_state_file_fault(rc))
    call = lua_pushfstring(L, "MONOSTAMP_SHARED=%s", path);
  return lms_result(L, rc, 0, 0, call, why);
}


/* now and now_us: the stamp and its offset.  The _us calls give the next
** stamp at whole-µs grain, from the same sequence, still in ns: under the
** ns policy they follow the µs policy's rule, so they are distinct too
** (for a value that holds no finer time, such as socket.gettime()'s). */
static int stamp_result (lua_State *L, int rc, const monostamp_stamp *stamp,
                         int first, const char *call) {
  if (rc != MONOSTAMP_OK)
    return fail(L, rc, first, call, NULL);
  lua_pushinteger(L, (lua_Integer)stamp->utc_ns);
  lua_pushinteger(L, (lua_Integer)stamp->offset_s);
  return 2;
}

static int ns_result (lua_State *L, int rc, int64_t ns, int first, const char *call) {
  if (rc != MONOSTAMP_OK)
    return fail(L, rc, first, call, NULL);
  lua_pushinteger(L, (lua_Integer)ns);
  return 1;
}


static int c_now (lua_State *L) {
  int first;
  monostamp_stamp stamp;
  int rc = monostamp_now(target(L, &first), &stamp);
  return stamp_result(L, rc, &stamp, first, "now");
}


static int c_now_us (lua_State *L) {
  int first;
  monostamp_stamp stamp;
  int rc = monostamp_now_us(target(L, &first), &stamp);
  return stamp_result(L, rc, &stamp, first, "now_us");
}


static int c_time_ns (lua_State *L) {
  int first;
  int64_t ns = 0;
  int rc = monostamp_time_ns(target(L, &first), &ns);
  return ns_result(L, rc, ns, first, "time_ns");
}


static int c_time_us (lua_State *L) {
  int first;
  int64_t ns = 0;
  int rc = monostamp_time_us(target(L, &first), &ns);
  return ns_result(L, rc, ns, first, "time_us");
}


/* uuid7(): the next stamp as an id, its canonical 36-character string
** (lowercase, so ids of one clock also compare with < as they were made). */
static int c_uuid7 (lua_State *L) {
  int first;
  uint8_t id[16];
  char text[MONOSTAMP_UUID_TEXT_SIZE];
  int rc = monostamp_uuid7(target(L, &first), id);
  if (rc != MONOSTAMP_OK)
    return fail(L, rc, first, "uuid7", NULL);
  monostamp_uuid_format(id, text);
  lua_pushlstring(L, text, MONOSTAMP_UUID_TEXT_SIZE - 1);
  return 1;
}


/* take(n): n consecutive stamps reserved at once (monostamp_clock_take):
** first, n, step. */
static int c_take (lua_State *L) {
  int first;
  monostamp_clock *clock = target(L, &first);
  int64_t n = lms_checkns(L, first), start = 0, step = 0;
  int rc;
  if (n < 1)
    return luaL_argerror(L, first, lua_pushfstring(L, "n=%I must be >= 1", (lua_Integer)n));
  rc = monostamp_clock_take(clock, n, &start, &step);
  if (rc == MONOSTAMP_ERANGE)
    return luaL_argerror(L, first, lua_pushfstring(L,
        "n=%I stamps would pass the int64 range", (lua_Integer)n));
  if (rc == MONOSTAMP_EPOLICY)
    return fail(L, rc, first, "take", lua_pushfstring(L,
        "the clock's policy %s allows equal stamps, so it has no blocks",
        monostamp_policy_name(monostamp_clock_policy(clock))));
  if (rc != MONOSTAMP_OK)
    return fail(L, rc, first, "take", NULL);
  lua_pushinteger(L, (lua_Integer)start);
  lua_pushinteger(L, (lua_Integer)n);
  lua_pushinteger(L, (lua_Integer)step);
  return 3;
}


static int c_policy (lua_State *L) {
  int first;
  lua_pushstring(L, monostamp_policy_name(monostamp_clock_policy(target(L, &first))));
  return 1;
}


static int c_set_policy (lua_State *L) {
  int first;
  monostamp_clock *clock = target(L, &first);
  int rc = monostamp_clock_set_policy(clock, lms_checkpolicy(L, first));
  lua_pushboolean(L, 1);
  return lms_result(L, rc, 1, first, NULL, NULL);
}


/* The default clock's functions when it is unusable: its error, each call. */
static int d_unusable (lua_State *L) {
  monostamp_clock *clock;
  int rc = monostamp_default_clock(&clock);
  return fail(L, rc, 1, lua_tostring(L, lua_upvalueindex(1)), NULL);
}

/* }====================================================== */


/*
** {======================================================
** The other methods
** =======================================================
*/

static int c_source (lua_State *L) {
  lua_pushstring(L, monostamp_source_name(monostamp_clock_source(toclock(L))));
  return 1;
}


/* The zone's name: "" for the local zone. */
static int c_zone (lua_State *L) {
  lua_pushstring(L, monostamp_zone_name(monostamp_clock_zone(toclock(L))));
  return 1;
}


static int c_max_lead_ns (lua_State *L) {
  lua_pushinteger(L, (lua_Integer)monostamp_clock_max_lead_ns(toclock(L)));
  return 1;
}


static int c_on_lead (lua_State *L) {
  lua_pushstring(L, monostamp_on_lead_name(monostamp_clock_on_lead(toclock(L))));
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


/* The result of set/advance: true, or an argument error.  ENOTSUP: the
** clock (argument 1) is the bad value; ERANGE: the amount (argument 2). */
static int manual_result (lua_State *L, monostamp_clock *clock, int rc,
                          const char *what, int64_t ns) {
  lua_pushboolean(L, 1);
  if (rc == MONOSTAMP_ENOTSUP)
    return lms_result(L, rc, 1, 1, NULL, lua_pushfstring(L,
        "%s needs a clock with source 'manual', this one's is '%s'",
        what, monostamp_source_name(monostamp_clock_source(clock))));
  if (rc == MONOSTAMP_ERANGE)
    return lms_result(L, rc, 1, 2, NULL, lua_pushfstring(L,
        "%s by %I ns would overflow the manual reading", what, (lua_Integer)ns));
  return lms_result(L, rc, 1, 2, what, NULL);
}


static int c_set (lua_State *L) {
  monostamp_clock *clock = toclock(L);
  int64_t ns = lms_checkns(L, 2);
  return manual_result(L, clock, monostamp_manual_set(clock, ns), "set", ns);
}


static int c_advance (lua_State *L) {
  monostamp_clock *clock = toclock(L);
  int64_t ns = lms_checkns(L, 2);
  return manual_result(L, clock, monostamp_manual_advance(clock, ns), "advance", ns);
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
  if (!p->open)
    lua_pushfstring(L, LMS_CLOCK_TYPE " (closed): %p", (void *)p);
  else {
    monostamp_clock *c = &p->clock;
    const char *zone = monostamp_zone_name(monostamp_clock_zone(c));
    int64_t lead = monostamp_clock_max_lead_ns(c);
    if (lead > 0)  /* say the bound only when there is one */
      lua_pushfstring(L, ", max_lead_ns %I %s", (lua_Integer)lead,
                      monostamp_on_lead_name(monostamp_clock_on_lead(c)));
    else
      lua_pushliteral(L, "");
    lua_pushfstring(L, LMS_CLOCK_TYPE " (%s, %s, zone '%s'%s%s): %p",
        monostamp_source_name(monostamp_clock_source(c)),
        monostamp_policy_name(monostamp_clock_policy(c)),
        zone[0] ? zone : "local", lua_tostring(L, -1),
        monostamp_clock_is_shared(c) ? ", shared" : "", (void *)p);
  }
  return 1;
}

/* }====================================================== */


/* Methods of clocks; the first eight are the module's functions too. */
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


/* Metamethods of clocks. */
static const luaL_Reg clock_metameth[] = {
  {"__close", c_close},  /* used by Lua 5.4's <close>; harmless in 5.3 */
  {"__gc", c_close},
  {"__tostring", c_tostring},
  {NULL, NULL}
};


/* The clock metatable, each method's and metamethod's first upvalue; and
** into the module table below it, the shared calls on the default clock
** (get_policy is its policy), or where that is unusable its error. */
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
