-- expect: over the sandbox limit of 65536 bytes for pattern matching
-- A backtracking pattern over a large subject: one C call the hook never interrupts.
local s = ("a"):rep(1 << 20)
return s:find(".-b")
