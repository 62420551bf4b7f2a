local k = kr.kernel("walk")
k:apply("index_precompute")
