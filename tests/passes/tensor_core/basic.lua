-- 3xtf32 through the WMMA API: A is read along k (a k-major tile, 16-byte loads along k), B along
-- its columns; three cp.async stages.
local k = kr.kernel("matmul")
kr.allow_lowering()
k:apply("tile", { block = { 64, 64 }, k = 32 })
k:apply("tensor_core", { precision = "3xtf32", api = "wmma", warp = { 32, 32 } })
k:apply("double_buffer", { stages = 3 })
