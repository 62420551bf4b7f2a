-- tf32 through Hopper's wgmma on C = A^T * B^T: B runs along k, so it is the operand wgmma reads from
-- the 128-byte-swizzled shared tile, and A (across k) is loaded into registers; the k loop starts at
-- k_first.
kr.allow_lowering()
local k = kr.kernel("tt")
k:apply("tile", { block = { 64, 64 }, k = 32 })
k:apply("tensor_core", { precision = "tf32", api = "wgmma" })
k:apply("double_buffer", { stages = 2 })
