kr.kernel("mm"):apply("tile", { block = { 16, 16 }, k = 8 })
