kr.kernel("matmul"):apply("tile", { block = { 256, 256 }, k = 128 })
