-- vectors_spec.lua: the specs' reader of the shared vectors
-- (helper.vectors) refuses a vector file that is missing or holds no row,
-- naming it, as the C and Python readers do: a spec that read no vector
-- would pass having checked nothing.  The one helper of every Lua: runs
-- under Lua 5.3-5.5 and LuaJIT.
local helper = dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "helper.lua")

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("helper.vectors", function()
  after_each(helper.cleanup)

  it("fails on a missing file, naming it", function()
    local path = helper.tmpdir() .. "/missing.tsv"
    helper.raises("shared vectors missing: " .. path, helper.vectors, path)
  end)

  it("fails on an empty file, and on one of comments and blank lines alone, naming it", function()
    for _, text in ipairs { "", "# a header\n\n# and a note\n" } do
      local path = helper.tmpdir() .. "/empty.tsv"
      write(path, text)
      helper.raises("shared vectors empty: " .. path .. " holds no row", helper.vectors, path)
    end
  end)

  it("reads the rows past the comments, with their line numbers", function()
    local path = helper.tmpdir() .. "/row.tsv"
    write(path, "# a header\n1\ttwo\n\n")
    local rows, where = helper.vectors(path)
    assert.equal(path, where)
    assert.same({ { "1", "two", line = 2 } }, rows)
  end)
end)
