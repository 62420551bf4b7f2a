local k = kr.kernel("big")
k:apply("unroll", { loop = 3 })
