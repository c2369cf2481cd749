/*
** lids.c: UUIDv7 ids and blocks of stamps for the Lua binding.  The core
** makes both (csrc/uuid7.c, monostamp_clock_take); here they become Lua
** values: an id is its canonical 36-character string (lowercase, so ids
** of one clock also compare with < as they were made), a block is its
** first stamp, its length and its step.
*/

#define lids_c
#define LUA_LIB

#include "lmonostamp.h"


int lms_push_uuid7 (lua_State *L, monostamp_clock *clock, const char *context) {
  uint8_t id[16];
  char text[MONOSTAMP_UUID_TEXT_SIZE];
  int rc = monostamp_uuid7(clock, id);
  if (rc != MONOSTAMP_OK)
    return lms_result(L, rc, 0, 0, context, NULL);
  monostamp_uuid_format(id, text);
  lua_pushlstring(L, text, MONOSTAMP_UUID_TEXT_SIZE - 1);
  return 1;
}


int lms_push_take (lua_State *L, monostamp_clock *clock, int arg, const char *context) {
  int64_t n = lms_tons(L, arg, arg, NULL), first = 0, step = 0;
  int rc;
  if (n < 1)
    return luaL_argerror(L, arg, lua_pushfstring(L, "n=%I must be >= 1", (lua_Integer)n));
  rc = monostamp_clock_take(clock, n, &first, &step);
  if (rc == MONOSTAMP_ERANGE)
    return luaL_argerror(L, arg, lua_pushfstring(L,
        "n=%I stamps would pass the int64 range", (lua_Integer)n));
  if (rc == MONOSTAMP_EPOLICY)
    return lms_result(L, rc, 0, 0, context, lua_pushfstring(L,
        "the clock's policy %s allows equal stamps, so it has no blocks",
        monostamp_policy_name(monostamp_clock_policy(clock))));
  if (rc != MONOSTAMP_OK)
    return lms_result(L, rc, 0, 0, context, NULL);
  lua_pushinteger(L, (lua_Integer)first);
  lua_pushinteger(L, (lua_Integer)n);
  lua_pushinteger(L, (lua_Integer)step);
  return 3;
}


/* uuid7_ns(s): the stamp an id from uuid7() was made of.  A malformed
** string, another version or variant, or fraction bits no nanosecond
** gives are bad arguments: the caller passed something that is no id of
** ours. */
int lms_uuid7_ns (lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  uint8_t id[16];
  int64_t ns = 0;
  int rc;
  if (monostamp_uuid_parse(text, len, id) != MONOSTAMP_OK)
    return luaL_argerror(L, 1, lua_pushfstring(L,
        "'%s' is not a UUID in canonical 8-4-4-4-12 form", text));
  rc = monostamp_uuid7_ns(id, &ns);
  if (rc != MONOSTAMP_OK)
    return luaL_argerror(L, 1, lua_pushfstring(L, "'%s': %s", text, monostamp_strerror(rc)));
  lua_pushinteger(L, (lua_Integer)ns);
  return 1;
}
