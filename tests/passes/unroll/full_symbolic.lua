-- A full '#pragma unroll' on a run-time trip count would be ignored by nvcc.
local k = kr.kernel("sum")
k:apply("unroll")
