local k = kr.kernel("rows")
k:apply("index_precompute")
