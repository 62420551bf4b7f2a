local k = kr.kernel("dot4")
k:apply("unroll", { mode = "text" })
