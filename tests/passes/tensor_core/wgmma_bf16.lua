-- bf16 through Hopper's wgmma (m64nNk16) on C = alpha * A * B^T + beta * C: both operands run along k,
-- so A (the m side) is read by wgmma from its 128-byte-swizzled shared tile (the transposed product)
-- and B from its own swizzled tile into registers by ldmatrix; leading dimensions wider than the
-- matrices, three stages.
local k = kr.kernel("gemm_nt")
k:apply("tile", { block = { 64, 128 }, k = 64 })
k:apply("tensor_core", { precision = "bf16", api = "wgmma" })
k:apply("double_buffer", { stages = 3 })
