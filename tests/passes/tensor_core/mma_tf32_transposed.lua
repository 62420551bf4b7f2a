-- tf32 through PTX mma.sync on C = A^T * B^T: A runs along the output's rows (tf32 fragments read
-- with 4-byte loads), B along k (ldmatrix); the k loop starts at k_first.
kr.allow_lowering()
local k = kr.kernel("tt")
k:apply("tile", { block = { 64, 64 }, k = 16 })
k:apply("tensor_core", { precision = "tf32", api = "mma", warp = { 32, 32 } })
k:apply("double_buffer", { stages = 2 })
