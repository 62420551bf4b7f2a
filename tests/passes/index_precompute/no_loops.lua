local k = kr.kernel("axpy")
k:apply("index_precompute")
