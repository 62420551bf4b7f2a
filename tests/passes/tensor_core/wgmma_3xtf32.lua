-- 3xtf32 through Hopper's wgmma on C = A * B: A (read along k) is rounded to tf32 in its swizzled tile
-- and its residuals kept in a tile beside it; B, loaded into registers, is split into a tf32 value and
-- a residual; three products per k step, pipelined over three stages.
kr.allow_lowering()   -- 3xtf32 is declared with tolerance 5e-6 (tensor_core.c)
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 32 })
k:apply("tensor_core", { precision = "3xtf32", api = "wgmma" })
k:apply("double_buffer", { stages = 3 })
