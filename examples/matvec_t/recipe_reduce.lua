-- examples/matvec_t/recipe_reduce.lua: as colsum, the column layout of block_reduce: 32 outputs
-- per block on threadIdx.x, each output's sum over A's rows spread over threadIdx.y.
local k = kr.kernel("matvec_t")
k:apply("block_reduce", { threads = kr.param("threads", 512), vector = kr.param("vector", true) })
