-- api wgmma reads fp16 in k steps of 16 from rows of 128 bytes: a k tile of 32 is refused.
kr.allow_lowering()
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 32 })
k:apply("tensor_core", { precision = "fp16", api = "wgmma" })
