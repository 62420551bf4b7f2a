local k = kr.kernel("mm")
k:apply("tile", { block = { 64, 64 }, k = 8 })
k:apply("register_tile", { thread = { 4, 4 } })
