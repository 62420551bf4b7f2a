local k = kr.kernel("syrk_lower")
k:apply("register_tile", { thread = { 4, 4 } })
