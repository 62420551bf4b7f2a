-- tests/steps/aliased/recipe.lua: three steps on the aliased scale_sum: ldg on w (correct), then
-- accumulate (wrong here: x is y), then unroll (still wrong, as it keeps accumulate's change).
local k = kr.kernel("scale_sum")
k:apply("ldg", { params = { "w" } })
k:apply("accumulate")
k:apply("unroll", { factor = 2 })
