local k = kr.kernel("act")
k:apply("vectorize")
