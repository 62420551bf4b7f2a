kr.kernel("transpose"):apply("tile", { block = { 32, 64 } })
