kr.kernel("matmul"):apply("tile", { block = { 32, 32 }, k = 16 })
