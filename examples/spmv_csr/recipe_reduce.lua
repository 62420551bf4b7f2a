-- examples/spmv_csr/recipe_reduce.lua: one thread per CSR row becomes one warp per row
-- (warp_reduce): the row's values and column indices are read by consecutive lanes.
local k = kr.kernel("spmv_csr")
k:apply("warp_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
