local k = kr.kernel("smooth")
k:apply("vectorize")
