local k = kr.kernel("affine_map")
k:apply("vectorize")
