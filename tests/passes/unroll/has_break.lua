local k = kr.kernel("first_neg")
k:apply("unroll", { mode = "text", loop = 0 })
