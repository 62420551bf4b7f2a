-- expect: memory limit of
-- One call that asks for a gigabyte string.
local s = ("x"):rep(1 << 30)
return #s
