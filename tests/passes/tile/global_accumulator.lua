kr.kernel("gemm"):apply("tile", { block = { 32, 32 }, k = 8, stage = { "A" } })
