-- implicit_gemm, then fp16 on the tensor cores: the fp32 input is gathered two rows at a time per
-- thread, through the index table, and each pair stored converted in one half2.
kr.allow_lowering()
local k = kr.kernel("conv2d")
k:apply("implicit_gemm", { block = { 128, 64 }, k = 32 })
k:apply("tensor_core", { precision = "fp16", warp = { 64, 32 } })
