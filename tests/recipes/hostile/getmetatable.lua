-- expect: global 'getmetatable'
-- Reaches the string table through the string metatable to put dump back.
local mt = getmetatable("")
return mt.__index.dump
