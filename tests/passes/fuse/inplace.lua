-- fuse, then tile: the consumer's statement stays the product's epilogue, per output.
local k = kr.kernel("matmul")
k:apply("fuse", { consumer = "relu" })
k:apply("tile", { block = { 32, 32 }, k = 8 })
