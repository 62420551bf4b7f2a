local k = kr.kernel("big")
k:apply("unroll", { factor = "four" })
