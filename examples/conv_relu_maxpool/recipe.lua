-- examples/conv_relu_maxpool/recipe.lua: each of the three kernels on its own (no fusion pass
-- yet). conv2d as in examples/conv2d; relu_inplace only gets restrict (t is read and written);
-- maxpool2d reads t through the read-only cache, has its window offsets hoisted and its 3 x 3
-- window unrolled fully (constant trip counts).
local conv = kr.kernel("conv2d")
conv:apply("restrict")
conv:apply("ldg", { params = { "x", "w", "b" } })
conv:apply("index_precompute")

kr.kernel("relu_inplace"):apply("restrict")

local pool = kr.kernel("maxpool2d")
pool:apply("restrict")
pool:apply("ldg", { params = { "t" } })
pool:try("index_precompute")
pool:apply("unroll", { var = "j" })
pool:apply("unroll", { var = "i" })
