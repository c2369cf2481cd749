-- ffi_cdef_spec.lua (LuaJIT only): the declarations monostamp/cdef.lua copies
-- from csrc/monostamp.h and csrc/monostamp_host.h stay true to them.  Every
-- function prototype must be the header's, token for token; every enum
-- constant its value; every struct the size and field offsets a C compiler
-- gives the header's.  So a change
-- to the header that cdef.lua has not followed fails here, not at run time.
local ffi = require "ffi"
require "monostamp.ffi"  -- runs the cdef
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

local function read(path)
  local f = assert(io.open(path, "r"))
  local s = f:read("*a")
  f:close()
  return s
end

-- Whitespace-insensitive form of a declaration.
local function norm(s)
  s = s:gsub("%s+", " ")
  s = s:gsub(" ?([%(%)%*,;%[%]]) ?", "%1")
  return (s:gsub("^ ", ""):gsub(" $", ""))
end

local cdef = read(helper.root .. "/bindings/lua/monostamp/cdef.lua"):match("return %[%[(.-)%]%]")
local header = (read(helper.root .. "/csrc/monostamp.h") .. "\n"
                .. read(helper.root .. "/csrc/monostamp_host.h")):gsub("/%*.-%*/", "")

describe("cdef.lua's declarations", function()
  it("declares each function exactly as csrc/monostamp.h or monostamp_host.h does", function()
    assert(cdef, "no return [[...]] block found in cdef.lua")
    local protos = {}
    for name, decl in header:gmatch("MONOSTAMP_API%s+[^;]-(monostamp_[%w_]+)%s*(%b())%s*;") do
      protos[name] = true
    end
    local count = 0
    for line in cdef:gmatch("[^\n]+") do
      local name = line:match("^[%w_ %*]-(monostamp_[%w_]+)%(")
      if name then
        count = count + 1
        local theirs = header:match("MONOSTAMP_API%s+([^;]-" .. name .. "%s*%b()%s*;)")
        assert(theirs, name .. " is not in csrc/monostamp.h or monostamp_host.h")
        assert.equal(norm(theirs), norm(line), name)
      end
    end
    assert.is_true(count >= 40, "only " .. count .. " prototypes found")
  end)

  it("gives each enum constant the header's value", function()
    local count = 0
    for name, value in cdef:gmatch("(MONOSTAMP_[%u_]+) = (%d+)") do
      count = count + 1
      assert.equal(value, header:match(name .. "%s*=%s*(%d+)"), name)
    end
    assert.is_true(count >= 9)
  end)

  it("lays each struct out as the C compiler lays out the header's", function()
    -- A C program printing "type.field offset" and "type size" lines, and
    -- the same lines from LuaJIT's view of the cdef.
    local c_lines, jit_lines = {}, {}
    local types = {}
    for body, name in cdef:gmatch("typedef struct [%w_]+ (%b{}) ([%w_]+);") do
      types[#types + 1] = name
      for field in body:gmatch("([%w_]+)%s*;") do
        c_lines[#c_lines + 1] = string.format('printf("%s.%s %%zu\\n", offsetof(%s, %s));',
                                              name, field, name, field)
        jit_lines[#jit_lines + 1] = string.format("%s.%s %d", name, field, ffi.offsetof(name, field))
      end
    end
    for _, name in ipairs(types) do
      c_lines[#c_lines + 1] = string.format('printf("%s %%zu %%zu\\n", sizeof(%s), _Alignof(%s));',
                                            name, name, name)
      jit_lines[#jit_lines + 1] = string.format("%s %d %d", name, ffi.sizeof(name), ffi.alignof(name))
    end
    local dir = helper.tmpdir()
    local f = assert(io.open(dir .. "/layout.c", "w"))
    f:write('#include <stdio.h>\n#include <stddef.h>\n#include "monostamp_host.h"\nint main(void) {\n',
            table.concat(c_lines, "\n"), "\nreturn 0;\n}\n")
    f:close()
    local out, ok = helper.sh("cc -std=c11 -I" .. helper.q(helper.root .. "/csrc") .. " "
      .. helper.q(dir .. "/layout.c") .. " -o " .. helper.q(dir .. "/layout") .. " 2>&1 && "
      .. helper.q(dir .. "/layout"))
    assert.is_true(ok, out)
    assert.equal(out, table.concat(jit_lines, "\n") .. "\n")
    assert.is_true(#types >= 6, #types .. " types")
    helper.cleanup()
  end)
end)
