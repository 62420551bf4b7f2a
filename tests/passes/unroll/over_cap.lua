local k = kr.kernel("big")
k:apply("unroll", { mode = "text" })
