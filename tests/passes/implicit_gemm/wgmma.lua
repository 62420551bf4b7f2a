-- implicit_gemm, then tf32 by Hopper's wgmma and three cp.async stages: the output runs along m (the
-- output positions), so the accumulators are stored through a shared tile, a warp writing 32
-- consecutive outputs of one channel.
kr.allow_lowering()
local k = kr.kernel("conv2d")
k:apply("implicit_gemm", { block = { 128, 96 }, k = 32 })
k:apply("tensor_core", { precision = "tf32", api = "wgmma", k = 32 })
k:apply("double_buffer", { stages = 3 })
