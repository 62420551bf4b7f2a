-- examples/matvec/recipe.lua: restrict (A and x const), A and x through the read-only cache,
-- and the j loop unrolled by 4 with a pragma (N is not a constant; order of the sum unchanged).
local k = kr.kernel("matvec")
k:apply("restrict")
k:apply("ldg", { params = { "A", "x" } })
k:apply("unroll", { var = "j", factor = 4 })
