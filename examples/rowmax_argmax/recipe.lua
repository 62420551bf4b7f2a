-- examples/rowmax_argmax/recipe.lua: restrict (x const), x through the read-only cache, and the
-- j loop unrolled by 4 with a pragma (cols is not a constant; the order of the comparisons, and
-- so the index kept on a tie, is unchanged).
local k = kr.kernel("rowmax_argmax")
k:apply("restrict")
k:apply("ldg", { params = { "x" } })
k:apply("unroll", { var = "j", factor = 4 })
