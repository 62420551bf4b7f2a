-- examples/matvec_t/recipe.lua: restrict (A and x const), A and x through the read-only cache,
-- and the i loop unrolled by 4 with a pragma (M is not a constant; the order of the sum is
-- unchanged).
local k = kr.kernel("matvec_t")
k:apply("restrict")
k:apply("ldg", { params = { "A", "x" } })
k:apply("unroll", { var = "i", factor = 4 })
