-- tile stages only A; the tensor cores read both operands' fragments from shared memory.
local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 32, stage = { "A" } })
k:apply("tensor_core", { precision = "3xtf32" })
