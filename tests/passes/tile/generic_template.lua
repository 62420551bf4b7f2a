-- tile on a generic template kernel.
kr.kernel("mm"):apply("tile", { block = { 32, 32 }, k = 8 })
