-- examples/rmsnorm_bf16/recipe.lua: exact rewrites only: restrict (x and weight const) and
-- __ldg of the __nv_bfloat16 loads of x and weight.
local k = kr.kernel("rmsnorm_bf16")
k:apply("restrict")
k:apply("ldg", { params = { "x", "weight" } })
