-- examples/matmul/recipe.lua: the exact basics on the naive kernel: restrict (A and B const),
-- A and B through the read-only cache, and the k loop unrolled by 4 with a pragma (K is not a
-- constant). The accumulation order is unchanged, so the result is bit-identical.
local k = kr.kernel("matmul")
k:apply("restrict")
k:apply("ldg", { params = { "A", "B" } })
k:apply("unroll", { var = "k", factor = 4 })
