-- expect: 'end' expected
-- An unfinished function.
local function f()
  return 1

