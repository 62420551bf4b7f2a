local k = kr.kernel("sum")
k:apply("vectorize")
