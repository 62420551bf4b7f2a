-- examples/layernorm/recipe.lua: exact rewrites only: restrict (x, weight, bias const) and the
-- read-only cache for x, weight and bias. See recipe_fast.lua for the fast-math variant.
local k = kr.kernel("layernorm")
k:apply("restrict")
k:apply("ldg", { params = { "x", "weight", "bias" } })
