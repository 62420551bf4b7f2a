local k = kr.kernel("blocks")
k:apply("index_precompute")
