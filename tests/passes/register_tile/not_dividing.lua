local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 } })
k:apply("register_tile", { thread = { 3, 4 } })
