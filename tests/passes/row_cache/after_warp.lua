local k = kr.kernel("scale")
k:apply("warp_reduce")
k:apply("row_cache")
