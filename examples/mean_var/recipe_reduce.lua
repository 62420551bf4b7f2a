-- examples/mean_var/recipe_reduce.lua: the mean and the variance in one sweep (welford), one block
-- of THREADS threads per row (block_reduce).
local k = kr.kernel("mean_var")
k:apply("welford")
k:apply("block_reduce", { threads = kr.param("threads", 512), vector = kr.param("vector", true) })
