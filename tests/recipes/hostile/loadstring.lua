-- expect: global 'loadstring'
-- The Lua 5.1 way to compile code at run time.
return loadstring("return 1")()
