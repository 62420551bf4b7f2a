kr.kernel("transpose"):apply("tile", { block = { 16, 64 } })
