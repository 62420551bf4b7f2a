local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 8 })
k:apply("register_tile", { thread = { 8, 4 } })
