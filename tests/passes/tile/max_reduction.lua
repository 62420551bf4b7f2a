kr.kernel("maxprod"):apply("tile", { block = { 16, 16 }, k = 8 })
