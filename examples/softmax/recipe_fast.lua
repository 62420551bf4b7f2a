-- examples/softmax/recipe_fast.lua: recipe.lua plus fast math: expf -> __expf and the division
-- by the row sum -> __fdividef. This lowers precision (the pass declares the tolerance it needs,
-- 1e-5), so it is a separate recipe and must be reported as such, next to the strict one.
kr.allow_lowering()
local k = kr.kernel("softmax")
k:apply("restrict")
k:apply("ldg", { params = { "x" } })
k:apply("fast_math", { ops = { "exp", "div" } })
