local k = kr.kernel("gather")
k:apply("index_precompute")
