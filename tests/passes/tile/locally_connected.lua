kr.kernel("local_fc"):apply("tile", { block = { 32, 32 }, k = 16, stage = { "w", "x" } })
