-- examples/layernorm/recipe_fast.lua: recipe.lua plus fast math: 1.0f / sqrtf(var + eps) ->
-- rsqrtf and the float divisions by cols -> __fdividef. Lowers precision (the pass declares
-- 1e-5); a separate recipe, reported next to the strict one.
kr.allow_lowering()
local k = kr.kernel("layernorm")
k:apply("restrict")
k:apply("ldg", { params = { "x", "weight", "bias" } })
k:apply("fast_math", { ops = { "rsqrt", "div" } })
