local k = kr.kernel("scale_rows")
k:apply("index_precompute", { min_ops = "two" })
