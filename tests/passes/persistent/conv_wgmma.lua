-- persistent on implicit_gemm's tf32 wgmma schedule: the divisors' table is filled once a block, before the tile
-- loop; each tile reads the divisors from it.
kr.allow_lowering()
local k = kr.kernel("conv2d")
k:apply("implicit_gemm", { block = { 128, 96 }, k = 32 })
k:apply("tensor_core", { precision = "tf32", api = "wgmma", k = 32 })
k:apply("double_buffer", { stages = 3 })
k:apply("persistent")
