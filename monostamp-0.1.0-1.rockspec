-- monostamp-0.1.0-1.rockspec: require "monostamp" for Lua 5.3, 5.4 and 5.5, and
-- require "monostamp.ffi" for LuaJIT over the libmonostamp.so it installs.
--
-- A command rockspec: tools/lua/build-rock.sh compiles the C parts with
-- luarocks' compiler and flags into build/luarocks/ (no Makefile needed,
-- no object file left, nothing in the source root where Python's `import
-- monostamp` would find it), and the install table below copies them into
-- the tree with the Lua files.  Files for other platforms compile to
-- nothing.  Tested on Linux; Windows (a POSIX shell, and MSVC's C11 atomics
-- need /experimental:c11atomics) is not.
--
-- Symbol hygiene: luarocks' flags hide nothing, so the sources hide what
-- they must themselves (csrc/config.h for the core,
-- bindings/lua/lmonostamp.h for the binding): a plain `luarocks make`
-- exports luaopen_monostamp_core alone.  tools/checks/check-lua-exports.sh builds a
-- rock in a scratch copy of the tree and checks exactly that (docs/lua.md
-- says why it matters: a host that links libmonostamp too).
rockspec_format = "3.0"
package = "monostamp"
version = "0.1.0-1"

-- XXX: the public repository's address is not settled; `luarocks make` in a
-- checkout does not use it.
source = {
   url = "git+https://github.com/monostamp/monostamp.git",
   tag = "v0.1.0",
}

description = {
   summary = "Unique, monotonic wall-clock timestamps with the local UTC offset",
   detailed = [[
monostamp hands out nanosecond timestamps (integers since the Unix epoch)
that never repeat and never go backwards, under Squeak Smalltalk's clock
policies, together with the UTC offset in force at each one; across
threads, fork()ed children and, through a shared state file, unrelated
processes (Lua, Python or C).  Also ISO 8601 formatting and parsing,
clock facts, and a precise sleep.
]],
   license = "MIT",
   labels = { "time", "clock", "timestamp" },
}

dependencies = {
   "lua >= 5.3, < 5.6",  -- 5.5: make test-forky (Debian testing's lua5.5)
}

build = {
   type = "command",
   build_command = [[sh tools/lua/build-rock.sh "$(CC)" "$(CFLAGS)" "$(LIBFLAG)" "$(LUA_INCDIR)"]],
   install = {
      lua = {
         -- require "monostamp": a one-line Lua file that loads the C part.
         monostamp = "bindings/lua/monostamp.lua",
         -- LuaJIT / OpenResty: require "monostamp.ffi" (docs/lua.md).
         ["monostamp.ffi"] = "bindings/lua/monostamp/ffi.lua",
         ["monostamp.cdef"] = "bindings/lua/monostamp/cdef.lua",
         ["monostamp.ffi_clock"] = "bindings/lua/monostamp/ffi_clock.lua",
         ["monostamp.testing"] = "bindings/lua/monostamp/testing.lua",
         -- The Lua spin that ends every sleep, for monostamp and monostamp.ffi.
         ["monostamp.sleep_finish"] = "bindings/lua/monostamp/sleep_finish.lua",
      },
      lib = {
         -- The C part: bindings/lua/*.c and csrc/*.c.
         ["monostamp.core"] = "build/luarocks/monostamp/core.so",
         -- Not a Lua module: the plain C library (libmonostamp.so, exporting
         -- the monostamp_* API) for monostamp.ffi under LuaJIT, installed as
         -- lib/lua/<version>/monostamp/libmonostamp.so, where ffi.lua looks.
         ["monostamp.libmonostamp"] = "build/luarocks/monostamp/libmonostamp.so",
      },
   },
}
