-- examples/softmax_rowthread/recipe_reduce.lua: one thread per row becomes one block per row
-- (block_reduce, THREADS threads), with the max and the sum of exponentials in one sweep.
local k = kr.kernel("softmax_rowthread")
k:apply("block_reduce", { threads = kr.param("threads", 1024), vector = kr.param("vector", true) })
k:apply("online_softmax")
