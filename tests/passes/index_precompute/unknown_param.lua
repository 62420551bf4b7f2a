local k = kr.kernel("scale_rows")
k:apply("index_precompute", { loops = 0 })
