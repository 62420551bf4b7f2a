local k = kr.kernel("taps3")
k:apply("unroll", { mode = "text" })
