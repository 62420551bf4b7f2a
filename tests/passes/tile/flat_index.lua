kr.kernel("matmul_flat"):apply("tile", { block = { 16, 64 }, k = 8, pad = false })
