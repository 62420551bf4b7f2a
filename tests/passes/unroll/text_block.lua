local k = kr.kernel("taps")
k:apply("unroll", { mode = "text", var = "t" })
