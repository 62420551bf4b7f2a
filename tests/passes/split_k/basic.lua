local k = kr.kernel("matmul")
k:apply("tile", { block = { 64, 64 }, k = 16 })
k:apply("register_tile", { thread = { 4, 4 } })
k:apply("split_k", { parts = 4 })
