-- examples/colsum/recipe.lua: restrict (A const), A through the read-only cache, and the i loop
-- unrolled by 4 with a pragma (M is not a constant; the order of the sum is unchanged).
local k = kr.kernel("colsum")
k:apply("restrict")
k:apply("ldg", { params = { "A" } })
k:apply("unroll", { var = "i", factor = 4 })
