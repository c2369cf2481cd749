/*
** lmonostamp.c: require "monostamp" for Lua 5.3+ (docs/lua.md): the
** module, its free functions and the converters.  Types and errors only;
** the core (csrc/monostamp.h) decides.  Nanoseconds are always
** lua_Integer: a double cannot hold today's instants to the nanosecond.
*/

#define lmonostamp_c
#define LUA_LIB

#include <errno.h>
#include <string.h>

#include "lmonostamp.h"

/*
** The code alone says everything (an OS failure carries its errno), so no
** errno is read here, where a Lua call may have changed it.  A runtime
** failure's code is the OS's errno (positive, as io.open gives it; on
** Windows the runtime's for the Windows code, else EINVAL with Windows'
** own number in the message), else the core's own (negative).
*/
int lms_result (lua_State *L, int rc, int nres, int arg,
                const char *context, const char *why) {
  int os_errno;
  if (rc >= 0)
    return nres;
  os_errno = monostamp_os_errno(rc);
  if (os_errno != 0) {
    int e = monostamp_errno_of(rc);  /* the OS's own number on POSIX */
#if defined(_WIN32)
    if (why == NULL)  /* the runtime's sentence for it, or Windows' own */
      why = e != 0 ? strerror(e)
                   : lua_pushfstring(L, "%s (Windows error %d)", monostamp_strerror(rc), os_errno);
#endif
    os_errno = e != 0 ? e : EINVAL;
  }
  if (why == NULL)
    why = monostamp_strerror(rc);
  if (context != NULL)
    why = lua_pushfstring(L, "%s: %s", context, why);
  if (arg > 0 && (rc == MONOSTAMP_EINVAL || rc == MONOSTAMP_ENOTSUP ||
                  rc == MONOSTAMP_ERANGE))
    return luaL_argerror(L, arg, why);
  luaL_pushfail(L);
  lua_pushstring(L, why);
  lua_pushinteger(L, os_errno != 0 ? os_errno : rc);
  return 3;
}

/* A float (even 1e9) is refused rather than rounded: above 2^53 a double
** no longer holds every nanosecond. */
int64_t lms_tons (lua_State *L, int idx, int arg, const char *field) {
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

const char *lms_tostring (lua_State *L, int idx, int arg, const char *field) {
  size_t len;
  const char *s = lua_tolstring(L, idx, &len);
  if (s != NULL && strlen(s) != len) {  /* "/x/a\0b" would open "/x/a" */
    char why[256];
    monostamp_rule_text(MONOSTAMP_RULE_NUL, field, lua_pushfstring(L, "%d", (int)strlen(s) + 1),
                        why, sizeof why);
    luaL_argerror(L, arg, lua_pushstring(L, why));
  }
  return s;
}

int lms_option (lua_State *L, int arg, const char *field, const char *name) {
  int value = 0;
  if (monostamp_option_from_name(field, name, &value) != MONOSTAMP_OK)
    luaL_argerror(L, arg, lua_pushfstring(L, "%s='%s' %s", field, name,
                                          monostamp_options_rule(field)));
  return value;
}

int lms_checkoption (lua_State *L, int arg, const char *field) {
  luaL_checkstring(L, arg);
  return lms_option(L, arg, field, lms_tostring(L, arg, arg, field));
}

static int ms_monotonic_ns (lua_State *L) {
  lua_pushinteger(L, (lua_Integer)monostamp_monotonic_ns());
  return 1;
}

static int ms_zone_changed (lua_State *L) {
  monostamp_zone_changed();
  lua_pushboolean(L, 1);
  return 1;
}

static int ms_clock_info (lua_State *L) {
  monostamp_clock_info info;
  int rc = monostamp_clock_info_get(lms_checkoption(L, 1, "source"), &info);
  if (rc != MONOSTAMP_OK)  /* a source this platform lacks */
    return lms_result(L, rc, 0, 0, lua_tostring(L, 1), NULL);
  lua_createtable(L, 0, 5);
  lua_pushstring(L, info.name), lua_setfield(L, -2, "name");
  lua_pushstring(L, info.implementation), lua_setfield(L, -2, "implementation");
  lua_pushinteger(L, (lua_Integer)info.resolution_ns), lua_setfield(L, -2, "resolution_ns");
  lua_pushboolean(L, info.adjustable), lua_setfield(L, -2, "adjustable");
  lua_pushboolean(L, info.monotonic), lua_setfield(L, -2, "monotonic");
  return 1;
}

static int ms_isoformat (lua_State *L) {
  char buf[MONOSTAMP_ISO8601_MAX + 1], why[160];
  int64_t utc_ns = lms_checkns(L, 1);
  lua_Integer offset_s = luaL_checkinteger(L, 2);
  lua_Integer digits = luaL_optinteger(L, 3, 9);
  int bad = 0;
  int n = monostamp_isoformat(buf, sizeof buf, utc_ns, offset_s, digits, lua_toboolean(L, 4),
                              &bad, why, sizeof why);
  if (n < 0)
    return lms_result(L, n, 0, bad, bad > 0 ? NULL : "isoformat", bad > 0 ? why : NULL);
  lua_pushlstring(L, buf, (size_t)n);
  return 1;
}

static int ms_parse (lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  int64_t utc_ns = 0;
  int32_t offset_s = 0;
  monostamp_parse_error error = {0, NULL};
  char why[320];
  int rc = monostamp_parse_iso8601(text, len, &utc_ns, &offset_s, &error);
  if (rc != MONOSTAMP_OK)  /* the core's sentence, where in characters */
    return monostamp_parse_fault(text, len, rc, &error, why, sizeof why),
           lms_result(L, rc, 0, 0, "parse", why);
  lua_pushinteger(L, (lua_Integer)utc_ns);
  lua_pushinteger(L, (lua_Integer)offset_s);
  return 2;
}

/* Anything that is no id of ours is a bad argument. */
static int ms_uuid7_ns (lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  char why[192];
  int64_t ns = 0;
  if (monostamp_uuid7_text_ns(text, len, &ns, why, sizeof why) != MONOSTAMP_OK)
    return luaL_argerror(L, 1, why);
  lua_pushinteger(L, (lua_Integer)ns);
  return 1;
}

static const luaL_Reg ms_funcs[] = {
  {"_sleep_finish", lms_sleep_finish},
  {"_sleep_nap", lms_sleep_nap},
  {"_sleep_step", lms_sleep_step},
  {"clock", lms_clock_new},
  {"clock_info", ms_clock_info},
  {"isoformat", ms_isoformat},
  {"monotonic_ns", ms_monotonic_ns},
  {"parse", ms_parse},
  {"sleep_ns", lms_sleep_ns},
  {"sleep_until_ns", lms_sleep_until_ns},
  {"uuid7_ns", ms_uuid7_ns},
  {"zone_changed", ms_zone_changed},
  {NULL, NULL}
};

LMS_EXPORT int luaopen_monostamp_core (lua_State *L) {
  monostamp_clock *clock = NULL;
  int code, i;
  if (monostamp_default_clock(&clock) != MONOSTAMP_OK)
    clock = NULL;
  lua_createtable(L, 0, 40);
  luaL_setfuncs(L, ms_funcs, 0);
  lms_clock_openmeta(L, clock);  /* the core keeps it at one address */
  lua_pushliteral(L, "monostamp"), lua_setfield(L, -2, "_NAME");
  lua_pushliteral(L, MONOSTAMP_VERSION), lua_setfield(L, -2, "_VERSION");
  lua_pushstring(L, monostamp_policy_name(MONOSTAMP_DEFAULT_POLICY));
  lua_setfield(L, -2, "DEFAULT_POLICY");
  lua_pushinteger(L, MONOSTAMP_DEFAULT_SLEEP_TOLERANCE_NS);
  lua_setfield(L, -2, "DEFAULT_SLEEP_TOLERANCE_NS");
  for (i = 0; (code = monostamp_error_code(i)) != 0; i++) {
    lua_pushinteger(L, code);
    lua_setfield(L, -2, monostamp_error_name(code));
  }
  return 1;
}
