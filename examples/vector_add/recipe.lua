-- examples/vector_add/recipe.lua: the memory-bound basics for an elementwise kernel.
-- restrict: x, y, out do not alias (const on x and y, which are only read); vectorize: float4
-- loads and stores (a vector loop, then a scalar tail); ldg: the loads of x and y, now float4
-- loads, through the read-only cache. vectorize comes before ldg because it rewrites plain x[i]
-- accesses, not __ldg(&x[i]).
local k = kr.kernel("vector_add")
k:apply("restrict")
k:apply("vectorize", { width = 4 })
k:apply("ldg", { params = { "x", "y" } })
