kr.kernel("matmul"):apply("tile", { stage = { "C" } })
