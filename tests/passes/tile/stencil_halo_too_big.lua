kr.kernel("blur"):apply("tile", { block = { 64, 128 } })
