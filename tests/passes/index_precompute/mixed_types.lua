local k = kr.kernel("mixed")
k:apply("index_precompute", { min_ops = 1 })
