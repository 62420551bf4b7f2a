local k = kr.kernel("matmul")
k:apply("tile", { block = { 256, 256 }, k = 4 })
k:apply("register_tile", { thread = { 16, 16 } })
