local k = kr.kernel("sum")
k:apply("unroll", { mode = "text" })
