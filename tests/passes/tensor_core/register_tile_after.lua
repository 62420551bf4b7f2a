-- the warp tile sets what each thread computes; register_tile does not apply after tensor_core.
kr.allow_lowering()
local k = kr.kernel("matmul")
k:apply("tensor_core")
k:apply("register_tile", { thread = { 4, 4 } })
