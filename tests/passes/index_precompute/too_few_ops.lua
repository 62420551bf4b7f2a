local k = kr.kernel("copy2d")
k:apply("index_precompute")
