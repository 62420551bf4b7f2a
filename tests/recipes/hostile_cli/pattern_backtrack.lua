-- expect: overran its wall-clock limit
-- Backtracking inside one string.find call, within the subject and pattern size guards: the Lua
-- hook cannot fire inside a C function, so `krewrite apply` stops itself (alarm) a few seconds
-- after the wall-clock limit, with a message and exit 1, writing nothing.
local s = string.rep("a", 60000)
local _ = s:find(".-.-.-b")
