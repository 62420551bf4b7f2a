-- api wgmma does not compute 3xtf32 (it would need the residual of the shared-memory operand): refused.
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 32 })
k:apply("tensor_core", { precision = "3xtf32", api = "wgmma" })
