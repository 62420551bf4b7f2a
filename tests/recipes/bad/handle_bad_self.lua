-- expect: bad self for apply of kernel 'vector_add': call it as k:apply(pass, params)
-- apply called with another table as self.
local k = kr.kernel("vector_add")
k.apply({ name = "vector_add" }, "restrict")
