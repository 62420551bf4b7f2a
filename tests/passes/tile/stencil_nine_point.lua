kr.kernel("stencil"):apply("tile", { block = { 16, 36 } })
