local k = kr.kernel("acc4")
k:apply("unroll", { loop = 0, factor = 4 })
