"""tools/docs/gen_lua_api.py LUA CPATH OUT: the docs site's Lua API page.

The names come from the module itself: LUA (lua5.4) requires "monostamp"
(bindings/lua/monostamp.lua over the C module built into CPATH, `make lua`)
and lists its functions, its constants and a clock's methods.  What each
does comes from docs/lua.md's reference: the table row or list item that
names the call (`monostamp.now()`, `c:set(ns)`, `- `take(n)` / ...`), shown
with a link to its section.  A function or method that docs/lua.md does not
describe fails the build, naming it: the page covers what the module has.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
LUA_DOC = REPO / "docs" / "lua.md"
# Calls docs/lua.md describes by a whole section (the constructor's options
# are a commented code block there), by that section's title.
BY_SECTION = {"clock": ("Clocks", "makes a clock from a table of options, each "
                        "optional; the section lists them with their defaults")}
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")

# Lists the module as JSON: {functions: [...], constants: {name: value}, methods: [...]}.
LIST_MODULE = r"""
local m = require "monostamp"
local function sorted(t) table.sort(t) return t end
local funcs, consts, methods = {}, {}, {}
for k, v in pairs(m) do
  if type(v) == "function" then
    if k:sub(1, 1) ~= "_" then funcs[#funcs + 1] = k end
  elseif type(v) ~= "table" then consts[#consts + 1] = k end
end
local c = assert(m.clock{ source = "manual" })
for k, v in pairs(getmetatable(c).__index) do methods[#methods + 1] = k end
c:close()
local function q(s) return '"' .. s .. '"' end
local function list(t) local o = {} for i, s in ipairs(sorted(t)) do o[i] = q(s) end
  return "[" .. table.concat(o, ",") .. "]" end
local cv = {}
for _, k in ipairs(sorted(consts)) do
  local v = m[k]
  cv[#cv + 1] = q(k) .. ":" .. (type(v) == "string" and q(v) or tostring(v))
end
io.write("{\"functions\":", list(funcs), ",\"methods\":", list(methods),
         ",\"constants\":{", table.concat(cv, ","), "}}")
"""


def slug(title):
    text = re.sub(r"`([^`]*)`", r"\1", title)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def descriptions():
    """(section title, anchor, first cell or item head, text) for every table
    row and list item under docs/lua.md's headings, outside code blocks."""
    entries, title, anchor, in_code, seen, part = [], "", "", False, {}, ""
    lines = LUA_DOC.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            in_code = not in_code
        elif not in_code and HEADING.match(line):
            title = HEADING.match(line).group(2)
            if len(HEADING.match(line).group(1)) == 2:
                part = title
            base = slug(title)
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchor = base if n == 0 else "%s-%d" % (base, n)
        elif part != "Reference":
            pass
        elif not in_code and line.startswith("|") and not re.match(r"^\|[-:| ]+\|$", line):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if len(cells) >= 2:
                entries.append((title, anchor, cells[0], "; ".join(cells[1:])))
        elif not in_code and line.startswith("- `"):
            item = [line[2:]]
            while i + 1 < len(lines) and lines[i + 1].startswith("  "):
                i += 1
                item.append(lines[i].strip())
            text = " ".join(item)
            head, _, rest = text.partition(": ")
            entries.append((title, anchor, head, rest))
        i += 1
    return entries


def find(entries, patterns):
    return [e for e in entries if any(re.search(p, e[2]) for p in patterns)]


def relink(text):
    """docs/lua.md's own links, made to work from the api/ folder."""
    text = re.sub(r"\]\(#", "](../docs/lua.md#", text)
    return re.sub(r"\]\((?![a-z]+:|\.\./|#)([^)]+)\)", r"](../docs/\1)", text)


def entry_md(name, found):
    out = []
    for title, anchor, head, text in found:
        head, text = relink(head), relink(text)
        out.append("- %s: %s ([%s](../docs/lua.md#%s))" % (head, text, title.replace("`", ""),
                                                           anchor))
    return "\n".join(out) + "\n"


def main(lua, cpath, out_path):
    env = {"LUA_CPATH": cpath + "/?.so;;", "LUA_PATH": str(REPO / "bindings" / "lua") + "/?.lua;;",
           "PATH": "/usr/bin:/bin"}
    run = subprocess.run([lua, "-e", LIST_MODULE], capture_output=True, text=True, env=env)
    if run.returncode != 0:
        sys.exit("gen_lua_api: %s could not list the module:\n%s" % (lua, run.stderr))
    module = json.loads(run.stdout)
    entries = descriptions()
    faults, parts = [], [
        "# Lua API\n",
        "What `require \"monostamp\"` gives (Lua 5.3-5.5): every function, constant and clock "
        "method of the module, listed from the module itself by `tools/docs/gen_lua_api.py` "
        "when the site is built, each with what [the Lua guide](../docs/lua.md) says of it "
        "and a link to there. LuaJIT's `monostamp.ffi` has the same functions "
        "([LuaJIT and OpenResty](../docs/lua.md#luajit-and-openresty-monostampffi)).\n",
        "## Functions\n"]
    for name in module["functions"]:
        public = "get_policy" if name == "policy" else name
        found = find(entries, [r"`monostamp\.%s[({]" % public, r"^`%s\(" % public])
        if not found and name in BY_SECTION:
            title, text = BY_SECTION[name]
            found = [(title, slug(title), "`monostamp.%s{...}`" % name, text)]
        if not found:
            faults.append("monostamp.%s: docs/lua.md describes it nowhere (a table row or a "
                          "list item naming `monostamp.%s(...)`)" % (name, name))
            continue
        parts.append("### `monostamp.%s`\n\n%s" % (name, entry_md(name, found)))
    parts.append("## Clock methods\n\nA clock (`monostamp.clock{...}`, a `monostamp.Clock` "
                 "userdata) has these methods; it also closes with `<close>` (Lua 5.4) and "
                 "when collected.\n")
    for name in module["methods"]:
        found = find(entries, [r"`c:%s\(" % name])
        if not found:
            faults.append("c:%s: docs/lua.md describes it nowhere (a table row or a list item "
                          "naming `c:%s(...)`)" % (name, name))
            continue
        parts.append("### `c:%s`\n\n%s" % (name, entry_md(name, found)))
    parts.append("## Constants\n\n| name | value |\n|---|---|")
    for name, value in module["constants"].items():
        parts.append("| `monostamp.%s` | `%s` |" % (name, json.dumps(value) if isinstance(
            value, str) else value))
    parts.append("\nThe error codes (`monostamp.EINVAL`, ...) are the third result of a call "
                 "that fails at run time: [Errors](../docs/lua.md#errors-which-raise-and-which-"
                 "return).\n")
    if faults:
        sys.exit("gen_lua_api: " + "\ngen_lua_api: ".join(faults))
    Path(out_path).write_text("\n".join(parts), encoding="utf-8")
    print("gen_lua_api: %d functions, %d methods, %d constants -> %s" % (
        len(module["functions"]), len(module["methods"]), len(module["constants"]), out_path))


if __name__ == "__main__":
    main(*sys.argv[1:])
