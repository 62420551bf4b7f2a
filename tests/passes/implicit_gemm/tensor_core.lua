-- implicit_gemm, then tf32 on the tensor cores and three cp.async stages on the gathered tiles.
kr.allow_lowering()
local k = kr.kernel("conv2d")
k:apply("implicit_gemm", { block = { 128, 64 }, k = 32 })
k:apply("tensor_core", { precision = "tf32", warp = { 64, 32 } })
k:apply("double_buffer", { stages = 3 })
