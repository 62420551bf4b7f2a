-- bf16 through PTX mma.sync: both operands along k (ldmatrix without transposing), alpha applied to
-- the products' sums, beta and the accumulation into C by the kernel's own prologue and epilogue.
local k = kr.kernel("gemm_nt")
k:apply("tile", { block = { 64, 64 }, k = 32 })
k:apply("tensor_core", { precision = "bf16", api = "mma", warp = { 32, 32 } })
k:apply("double_buffer", { stages = 3 })
