-- api wgmma computes tf32 only so far.
kr.allow_lowering()
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 32 })
k:apply("tensor_core", { precision = "fp16", api = "wgmma" })
