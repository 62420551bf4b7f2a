-- expect: global 'load'
-- Compiles code at run time, which could be a binary chunk.
local f = load("return 1")
return f()
