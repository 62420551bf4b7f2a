local k = kr.kernel("mm_bt")
k:apply("tile", { block = { 32, 32 }, k = 8 })
k:apply("register_tile", { thread = { 2, 4 } })
k:apply("double_buffer", { stages = 2 })
