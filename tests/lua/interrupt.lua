-- interrupt.lua: what the Lua and LuaJIT sleep specs share (loaded with
-- dofile, not a spec; plain Lua 5.1 syntax, so LuaJIT reads it too).
-- Returns interrupted(helper, interp, script): runs `script` under `interp`
-- in the background with a ready file as arg[1]; once the file exists,
-- sends SIGINT; waits up to 20 s, then SIGKILL.  Returns the child's output
-- followed by "rc=<status>".  Shell builtins only (kill, wait): no
-- timeout(1) or pkill, which a preloaded sanitizer runtime (make
-- test-lua-asan) can hang.  `helper` gives sh() and q().
return function(helper, interp, script)
  local dir = script:match("^(.*)/")
  local ready, out = dir .. "/ready", dir .. "/out"
  return (helper.sh(("cd %s && { %s %s %s > %s 2>&1 & bg=$!; "
    .. "n=0; while [ ! -e %s ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done; "
    .. "sleep 0.2; kill -INT $bg; "
    .. "n=0; while kill -0 $bg 2>/dev/null && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done; "
    .. "kill -9 $bg 2>/dev/null; wait $bg; s=$?; cat %s; echo \"rc=$s\"; }"):format(
    helper.q(dir), interp, helper.q(script), helper.q(ready), helper.q(out), helper.q(ready),
    helper.q(out))))
end
