-- examples/colsum/recipe_reduce.lua: block_reduce picks its column layout here (the original's
-- threads read consecutive columns): 32 columns per block on threadIdx.x, each column's rows over
-- THREADS / 32 threads on threadIdx.y, combined through shared memory in a fixed order.
local k = kr.kernel("colsum")
k:apply("block_reduce", { threads = kr.param("threads", 1024), vector = kr.param("vector", true) })
