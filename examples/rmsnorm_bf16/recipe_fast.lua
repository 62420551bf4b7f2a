-- examples/rmsnorm_bf16/recipe_fast.lua: recipe.lua plus fast math: 1.0f / sqrtf(...) -> rsqrtf
-- and the division by cols -> __fdividef. Lowers precision, so it is reported as such. Caution:
-- the pass declares 1e-5 relative L2, which holds for fp32 outputs; here the output is bf16, and
-- an fp32 value that moves by one ulp can round to the neighbouring bf16 value (an error of up to
-- 2^-8 on that element). Measured on an H200: 0 at the test sizes, 7.4e-6 at 64 x 4096; a small
-- case with a single flipped element can exceed 1e-5.
kr.allow_lowering()
local k = kr.kernel("rmsnorm_bf16")
k:apply("restrict")
k:apply("ldg", { params = { "x", "weight" } })
k:apply("fast_math", { ops = { "rsqrt", "div" } })
