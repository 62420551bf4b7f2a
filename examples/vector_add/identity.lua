-- examples/vector_add/identity.lua: a recipe that applies no passes. krewrite must reproduce the
-- input byte for byte (text is the IR: code no pass touched is never reformatted).
local k = kr.kernel("vector_add")
assert(k.name == "vector_add")
