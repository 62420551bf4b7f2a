-- examples/vector_add_gridstride/recipe.lua: restrict (x, y const; no aliasing), float4 loads and
-- stores in the grid-stride loop (a vector loop, then a scalar tail for the last n % 4), then the
-- loads of x and y through the read-only cache. vectorize comes before ldg because it rewrites
-- plain x[i] accesses, not __ldg(&x[i]).
local k = kr.kernel("vector_add_gridstride")
k:apply("restrict")
k:apply("vectorize", { width = 4 })
k:apply("ldg", { params = { "x", "y" } })
